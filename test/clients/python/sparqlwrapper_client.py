"""SPARQLWrapper 2.0.0 against ianode, used as its documentation shows, with the bearer token added
by `addCustomHttpHeader`. Prints one JSON object: step name -> result (see common.py).

    IANODE_TOKEN=... python sparqlwrapper_client.py --query URL --update URL --gsp URL --prefix IRI
"""
import csv
import io

from rdflib import Graph
from SPARQLWrapper import CSV, JSON, JSONLD, POST, RDFXML, TSV, TURTLE, XML, SPARQLWrapper

from common import Report, arguments, json_term, triples

args = arguments(__doc__)
report = Report()

PROJECT = "SELECT ?p ?o WHERE { <http://example/project1> ?p ?o } ORDER BY ?p"
ASK = 'ASK { <http://example/project1> <http://example/codename> "KESTREL" }'
# LIMIT on CONSTRUCT/DESCRIBE (issue 15 item 1): the first two of project1's triples by predicate.
CONSTRUCT = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o FILTER(?s = <http://example/project1>) } ORDER BY ?p LIMIT 2"
DESCRIBE = "DESCRIBE ?s WHERE { ?s <http://example/name> ?n } LIMIT 1"


def client(label=None, endpoint=None):
    wrapper = SPARQLWrapper(endpoint or args.query, updateEndpoint=args.update)
    wrapper.addCustomHttpHeader("Authorization", f"Bearer {args.token}")
    if label is not None:
        wrapper.addCustomHttpHeader("Security-Label", label)
    return wrapper


def select(return_format):
    wrapper = client()
    wrapper.setQuery(PROJECT)
    if return_format is not None:
        wrapper.setReturnFormat(return_format)
    result = wrapper.query()
    content_type = result.info().get("content-type")
    converted = result.convert()
    return content_type, converted


def xml_rows(document):
    """Rows of a SPARQL XML results DOM (what SPARQLWrapper's convert() gives for XML)."""
    rows = []
    for result in document.getElementsByTagName("result"):
        row = {}
        for binding in result.getElementsByTagName("binding"):
            node = next(n for n in binding.childNodes if n.nodeType == n.ELEMENT_NODE)
            text = "".join(c.data for c in node.childNodes if c.nodeType == c.TEXT_NODE)
            if node.tagName == "uri":
                row[binding.getAttribute("name")] = json_term({"type": "uri", "value": text})
            elif node.tagName == "bnode":
                row[binding.getAttribute("name")] = "_:b"
            else:
                row[binding.getAttribute("name")] = json_term({
                    "type": "literal",
                    "value": text,
                    "datatype": node.getAttribute("datatype") or None,
                    "xml:lang": node.getAttribute("xml:lang") or None,
                })
        rows.append(row)
    return rows


@report.step("select-json")
def _():
    content_type, body = select(JSON)
    rows = [{k: json_term(v) for k, v in b.items()} for b in body["results"]["bindings"]]
    return {"contentType": content_type, "vars": body["head"]["vars"], "rows": rows}


@report.step("select-json-post")
def _():
    # POST: SPARQLWrapper sends the query as an HTML form (application/x-www-form-urlencoded).
    wrapper = client()
    wrapper.setQuery(PROJECT)
    wrapper.setMethod(POST)
    wrapper.setReturnFormat(JSON)
    body = wrapper.query().convert()
    return {"rows": [{k: json_term(v) for k, v in b.items()} for b in body["results"]["bindings"]]}


@report.step("select-xml")
def _():
    # XML is SPARQLWrapper's default: no setReturnFormat.
    content_type, document = select(None)
    return {"contentType": content_type, "rows": xml_rows(document)}


@report.step("select-csv")
def _():
    content_type, body = select(CSV)
    table = list(csv.reader(io.StringIO(body.decode("utf-8"))))
    return {"contentType": content_type, "header": table[0], "rows": table[1:]}


@report.step("select-tsv")
def _():
    content_type, body = select(TSV)
    lines = body.decode("utf-8").rstrip("\n").split("\n")
    return {"contentType": content_type, "header": lines[0].split("\t"), "rows": [line.split("\t") for line in lines[1:]]}


def ask(return_format):
    wrapper = client()
    wrapper.setQuery(ASK)
    wrapper.setReturnFormat(return_format)
    result = wrapper.query()
    body = result.convert()
    if return_format == JSON:
        answer = body["boolean"]
    else:
        answer = document_boolean(body)
    return {"contentType": result.info().get("content-type"), "boolean": answer}


def document_boolean(document):
    node = document.getElementsByTagName("boolean")[0]
    return node.firstChild.data.strip() == "true"


@report.step("ask-json")
def _():
    return ask(JSON)


@report.step("ask-xml")
def _():
    return ask(XML)


def graph_query(query, return_format):
    """CONSTRUCT / DESCRIBE; `None` keeps SPARQLWrapper's default (RDF/XML for these forms)."""
    wrapper = client()
    wrapper.setQuery(query)
    if return_format is not None:
        wrapper.setReturnFormat(return_format)
    result = wrapper.query()
    content_type = result.info().get("content-type")
    converted = result.convert()
    if isinstance(converted, bytes):  # Turtle comes back as bytes: parse it as a user would
        graph = Graph()
        graph.parse(data=converted.decode("utf-8"), format="turtle")
        converted = graph
    return {"contentType": content_type, "triples": triples(converted)}


for form, query in (("construct", CONSTRUCT), ("describe", DESCRIBE)):
    for name, return_format in (("turtle", TURTLE), ("rdfxml", None), ("jsonld", JSONLD)):
        report.step(f"{form}-{name}")(lambda q=query, f=return_format: graph_query(q, f))

# RDFXML named explicitly too (the same Accept as the default, plus format=/output= parameters).
report.step("construct-rdfxml-explicit")(lambda: graph_query(CONSTRUCT, RDFXML))


def update(text, label=None):
    wrapper = client(label)
    wrapper.setMethod(POST)
    wrapper.setQuery(text)
    result = wrapper.query()
    return {"status": result.response.status, "body": result.response.read().decode("utf-8", "replace")}


def subject_rows(iri):
    wrapper = client()
    wrapper.setQuery(f"SELECT ?p ?o WHERE {{ <{iri}> ?p ?o }}")
    wrapper.setReturnFormat(JSON)
    return [{k: json_term(v) for k, v in b.items()} for b in wrapper.query().convert()["results"]["bindings"]]


LABELLED = f"{args.prefix}sw-labelled"
UNLABELLED = f"{args.prefix}sw-unlabelled"


@report.step("update-labelled")
def _():
    out = update(f'INSERT DATA {{ <{LABELLED}> <http://example/title> "written by SPARQLWrapper" }}', args.label)
    return {**out, "readBack": subject_rows(LABELLED)}


@report.step("update-unlabelled")
def _():
    return update(f'INSERT DATA {{ <{UNLABELLED}> <http://example/title> "no label" }}')


@report.step("read-unlabelled")
def _():
    return {"rows": subject_rows(UNLABELLED)}


@report.step("delete-labelled")
def _():
    out = update(f"DELETE WHERE {{ <{LABELLED}> ?p ?o }}", args.label)
    return {**out, "readBack": subject_rows(LABELLED)}


report.print()
