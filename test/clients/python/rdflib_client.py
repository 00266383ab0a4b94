"""rdflib 7 against ianode: SPARQLStore / SPARQLUpdateStore with the bearer token passed the way
rdflib documents it (`headers=`, handed to every request), and the Graph Store Protocol with the
standard library's urllib (rdflib has no GSP client) whose bodies rdflib parses and serialises.
Prints one JSON object: step name -> result (see common.py).

    IANODE_TOKEN=... python rdflib_client.py --query URL --update URL --gsp URL --prefix IRI
"""
import urllib.parse
import urllib.request

from rdflib import Graph, Literal, URIRef
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID
from rdflib.plugins.stores.sparqlstore import SPARQLStore, SPARQLUpdateStore

from common import Report, arguments, term, triples

args = arguments(__doc__)
report = Report()
AUTH = {"Authorization": f"Bearer {args.token}"}

PROJECT = "SELECT ?p ?o WHERE { <http://example/project1> ?p ?o } ORDER BY ?p"
ASK = 'ASK { <http://example/project1> <http://example/codename> "KESTREL" }'
CONSTRUCT = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o FILTER(?s = <http://example/project1>) } ORDER BY ?p LIMIT 2"
DESCRIBE = "DESCRIBE ?s WHERE { ?s <http://example/name> ?n } LIMIT 1"
TITLE = URIRef("http://example/title")


def store(return_format=None):
    kwargs = {} if return_format is None else {"returnFormat": return_format}
    return SPARQLStore(args.query, headers=dict(AUTH), **kwargs)


def update_store(label=None):
    headers = dict(AUTH)
    if label is not None:
        headers["Security-Label"] = label
    return SPARQLUpdateStore(args.query, args.update, headers=headers)


def update_graph(label=None):
    # The dataset's default graph (a Graph() of its own would be named by a blank node, which
    # SPARQLUpdateStore refuses). Its add()/remove() write to the default graph; its update() is
    # not used, as rdflib 7 wraps it in GRAPH <urn:x-rdflib:default> (the identifier is a str).
    return Graph(update_store(label), identifier=DATASET_DEFAULT_GRAPH_ID)


def select(return_format):
    result = Graph(store(return_format)).query(PROJECT)
    return {"vars": [str(v) for v in result.vars], "rows": [{str(k): term(v) for k, v in row.asdict().items()} for row in result]}


for name in ("xml", "json", "csv", "tsv"):
    report.step(f"select-{name}")(lambda n=name: select(None if n == "xml" else n))


@report.step("select-post")
def _():
    # method="POST": rdflib sends the query as application/sparql-query.
    result = Graph(SPARQLStore(args.query, headers=dict(AUTH), method="POST")).query(PROJECT)
    return {"rows": [{str(k): term(v) for k, v in row.asdict().items()} for row in result]}


@report.step("ask")
def _():
    return {"boolean": bool(Graph(store()).query(ASK).askAnswer)}


def graph_query(query, return_format):
    # rdflib's default (None): Accept application/sparql-results+xml, application/rdf+xml, so RDF/XML
    # for these forms; returnFormat "turtle" / "json-ld" accept just that.
    return {"triples": triples(Graph(store(return_format)).query(query).graph)}


for form, query in (("construct", CONSTRUCT), ("describe", DESCRIBE)):
    for name, return_format in (("turtle", "turtle"), ("rdfxml", None), ("jsonld", "json-ld")):
        report.step(f"{form}-{name}")(lambda q=query, f=return_format: graph_query(q, f))


@report.step("graph-api")
def _():
    # The Graph API over SPARQLStore (rdflib writes the queries): triples(), value(), `in`.
    graph = Graph(store(), identifier=DATASET_DEFAULT_GRAPH_ID)
    project = URIRef("http://example/project1")
    return {
        "triples": sorted([term(s), term(p), term(o)] for s, p, o in graph.triples((project, None, None))),
        "codename": term(graph.value(project, URIRef("http://example/codename"))),
        "hasName": (project, URIRef("http://example/name"), Literal("Bridge survey")) in graph,
    }


def subject_rows(iri):
    result = Graph(store("json")).query(f"SELECT ?p ?o WHERE {{ <{iri}> ?p ?o }}")
    return [{str(k): term(v) for k, v in row.asdict().items()} for row in result]


LABELLED = f"{args.prefix}rdflib-labelled"
ADDED = f"{args.prefix}rdflib-added"
UNLABELLED = f"{args.prefix}rdflib-unlabelled"


@report.step("update-labelled")
def _():
    update_store(args.label).update(f'INSERT DATA {{ <{LABELLED}> <http://example/title> "written by rdflib" }}')
    return {"readBack": subject_rows(LABELLED)}


@report.step("add-labelled")
def _():
    # Graph.add() through SPARQLUpdateStore: an INSERT DATA on the update endpoint.
    update_graph(args.label).add((URIRef(ADDED), TITLE, Literal("added by rdflib")))
    return {"readBack": subject_rows(ADDED)}


@report.step("update-unlabelled")
def _():
    update_store().update(f'INSERT DATA {{ <{UNLABELLED}> <http://example/title> "no label" }}')
    return {}


@report.step("add-unlabelled")
def _():
    update_graph().add((URIRef(UNLABELLED), TITLE, Literal("no label, added")))
    return {}


@report.step("remove-labelled")
def _():
    update_graph(args.label).remove((URIRef(ADDED), None, None))
    return {"readBack": subject_rows(ADDED)}


# The Graph Store Protocol with urllib; bodies made and read by rdflib.
GRAPH = f"{args.prefix}rdflib-graph"


def gsp(method, graph_iri, body=None, content_type=None, accept=None, label=None):
    url = f"{args.gsp}?{urllib.parse.urlencode({'graph': graph_iri})}"
    headers = dict(AUTH)
    if content_type:
        headers["Content-Type"] = content_type
    if accept:
        headers["Accept"] = accept
    if label:
        headers["Security-Label"] = label
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    with urllib.request.urlopen(request) as response:
        return response.status, response.headers.get("content-type"), response.read()


def graph_of(turtle):
    g = Graph()
    g.parse(data=turtle, format="turtle")
    return g


def fetch(accept, fmt):
    status, content_type, body = gsp("GET", GRAPH, accept=accept)
    g = Graph()
    g.parse(data=body.decode("utf-8"), format=fmt)
    return {"status": status, "contentType": content_type, "triples": triples(g)}


def send(method, subject, title, fmt, content_type):
    body = graph_of(f'<{subject}> <http://example/title> "{title}" .').serialize(format=fmt).encode()
    status, _, _ = gsp(method, GRAPH, body, content_type, label=args.label)
    return {**fetch("text/turtle", "turtle"), "status": status}


report.step("gsp-put-turtle")(lambda: send("PUT", f"{GRAPH}/a", "put by rdflib", "turtle", "text/turtle"))
report.step("gsp-post-ntriples")(lambda: send("POST", f"{GRAPH}/b", "posted by rdflib", "nt", "application/n-triples"))
report.step("gsp-get-rdfxml")(lambda: fetch("application/rdf+xml", "xml"))
report.step("gsp-get-jsonld")(lambda: fetch("application/ld+json", "json-ld"))
# An RDF/XML body, rdflib's default serialisation (issue 15 item 2: RDF/XML in).
report.step("gsp-post-rdfxml")(lambda: send("POST", f"{GRAPH}/c", "posted as RDF/XML", "xml", "application/rdf+xml"))


@report.step("gsp-put-unlabelled")
def _():
    body = graph_of(f'<{GRAPH}-unlabelled> <http://example/title> "no label" .').serialize(format="turtle").encode()
    status, _, _ = gsp("PUT", f"{GRAPH}-unlabelled", body, "text/turtle")
    return {"status": status}


@report.step("gsp-delete")
def _():
    status, _, _ = gsp("DELETE", GRAPH)
    try:
        after, _, _ = gsp("GET", GRAPH, accept="text/turtle")
    except urllib.error.HTTPError as error:
        after = error.code
    return {"status": status, "after": after}


report.print()
