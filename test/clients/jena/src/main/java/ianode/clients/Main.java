package ianode.clients;

import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.apache.jena.atlas.json.JsonArray;
import org.apache.jena.atlas.json.JsonObject;
import org.apache.jena.atlas.web.HttpException;
import org.apache.jena.graph.Triple;
import org.apache.jena.http.auth.AuthEnv;
import org.apache.jena.query.QuerySolution;
import org.apache.jena.rdf.model.Model;
import org.apache.jena.rdf.model.ModelFactory;
import org.apache.jena.rdf.model.Property;
import org.apache.jena.rdf.model.Resource;
import org.apache.jena.rdfconnection.RDFConnection;
import org.apache.jena.rdfconnection.RDFConnectionRemote;
import org.apache.jena.riot.RDFFormat;
import org.apache.jena.riot.out.NodeFmtLib;
import org.apache.jena.sparql.engine.http.QueryExceptionHTTP;

/**
 * Apache Jena's RDFConnectionRemote against ianode, as a Jena user writes it (issue 15's acceptance).
 * The bearer token is added to every request by an auth modifier registered with Jena's AuthEnv for
 * each endpoint (the supported way to add a header to all of a connection's requests: query, update
 * and Graph Store Protocol alike); the same modifier adds {@code Security-Label} while a label is set.
 *
 * <pre>IANODE_TOKEN=... java -cp target/classes:target/lib/* ianode.clients.Main BASE PREFIX [LABEL]</pre>
 *
 * BASE is the dataset URL (http://localhost:3030/ds); PREFIX an IRI prefix for what this run
 * writes. Prints one JSON object: step name -> {ok, ...} or {ok:false, status, message}.
 */
public final class Main {
    static final String PROJECT = "SELECT ?p ?o WHERE { <http://example/project1> ?p ?o } ORDER BY ?p";
    static final String ASK = "ASK { <http://example/project1> <http://example/codename> \"KESTREL\" }";
    // LIMIT on CONSTRUCT/DESCRIBE (issue 15 item 1): the first two of project1's triples by predicate.
    static final String CONSTRUCT = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o FILTER(?s = <http://example/project1>) } ORDER BY ?p LIMIT 2";
    static final String DESCRIBE = "DESCRIBE ?s WHERE { ?s <http://example/name> ?n } LIMIT 1";

    /** The Security-Label the modifier adds, or null for none. */
    static volatile String label;
    static String base;
    static final JsonObject report = new JsonObject();

    interface Step { JsonObject run() throws Exception; }

    public static void main(String[] args) {
        if (args.length < 2 || System.getenv("IANODE_TOKEN") == null) {
            System.err.println("usage: IANODE_TOKEN=... Main BASE PREFIX [LABEL]");
            System.exit(2);
        }
        base = args[0];
        String prefix = args[1];
        String writeLabel = args.length > 2 ? args[2] : "employee";
        String token = System.getenv("IANODE_TOKEN");
        for (String endpoint : new String[] { base + "/query", base + "/update", base + "/data" }) {
            AuthEnv.get().registerAuthModifier(endpoint, builder -> {
                builder.setHeader("Authorization", "Bearer " + token);
                String l = label;
                if (l != null) builder.setHeader("Security-Label", l);
                return builder;
            });
        }

        // SELECT in every results format Jena reads, each by its Accept header.
        String[][] selectFormats = {
            { "json", "application/sparql-results+json" },
            { "xml", "application/sparql-results+xml" },
            { "csv", "text/csv" },
            { "tsv", "text/tab-separated-values" },
        };
        for (String[] f : selectFormats) {
            step("select-" + f[0], () -> {
                try (RDFConnection conn = connection().acceptHeaderSelectQuery(f[1]).build()) {
                    JsonArray rows = new JsonArray();
                    conn.querySelect(PROJECT, row -> rows.add(rowJson(row)));
                    JsonObject out = new JsonObject();
                    out.put("rows", rows);
                    return out;
                }
            });
        }
        step("select-default", () -> {
            try (RDFConnection conn = connection().build()) {
                JsonArray rows = new JsonArray();
                conn.querySelect(PROJECT, row -> rows.add(rowJson(row)));
                JsonObject out = new JsonObject();
                out.put("rows", rows);
                return out;
            }
        });
        step("ask", () -> {
            try (RDFConnection conn = connection().build()) {
                JsonObject out = new JsonObject();
                out.put("boolean", conn.queryAsk(ASK));
                return out;
            }
        });

        // CONSTRUCT and DESCRIBE with LIMIT: Jena's own Accept (Turtle first), then each format alone.
        String[][] graphFormats = {
            { "default", null },
            { "turtle", "text/turtle" },
            { "rdfxml", "application/rdf+xml" },
            { "jsonld", "application/ld+json" },
        };
        for (String[] f : graphFormats) {
            step("construct-" + f[0], () -> graphQuery(f[1], false));
            step("describe-" + f[0], () -> graphQuery(f[1], true));
        }

        // Updates with and without a label.
        String labelled = prefix + "jena-labelled";
        String unlabelled = prefix + "jena-unlabelled";
        step("update-labelled", () -> {
            withLabel(writeLabel, () -> { update("INSERT DATA { <" + labelled + "> <http://example/title> \"written by Jena\" }"); return null; });
            return readBack(labelled);
        });
        step("update-unlabelled", () -> {
            update("INSERT DATA { <" + unlabelled + "> <http://example/title> \"no label\" }");
            return new JsonObject();
        });
        step("read-unlabelled", () -> readBack(unlabelled));
        step("delete-labelled", () -> {
            withLabel(writeLabel, () -> { update("DELETE WHERE { <" + labelled + "> ?p ?o }"); return null; });
            return readBack(labelled);
        });

        // Graph Store Protocol: put, load (POST), fetch in Jena's default and in RDF/XML, delete.
        String graph = prefix + "jena-graph";
        Model first = model(graph + "/a", "put by Jena");
        Model second = model(graph + "/b", "loaded by Jena");
        step("gsp-put", () -> {
            withLabel(writeLabel, () -> { try (RDFConnection conn = connection().build()) { conn.put(graph, first); } return null; });
            return fetched(null, graph);
        });
        step("gsp-load", () -> {
            withLabel(writeLabel, () -> { try (RDFConnection conn = connection().build()) { conn.load(graph, second); } return null; });
            return fetched(null, graph);
        });
        step("gsp-fetch-rdfxml", () -> fetched("application/rdf+xml", graph));
        step("gsp-fetch-jsonld", () -> fetched("application/ld+json", graph));
        step("gsp-load-rdfxml", () -> {
            // RDF/XML in (issue 15 item 2): the body sent as application/rdf+xml.
            Model third = model(graph + "/c", "loaded as RDF/XML");
            withLabel(writeLabel, () -> { try (RDFConnection conn = connection().triplesFormat(RDFFormat.RDFXML).build()) { conn.load(graph, third); } return null; });
            return fetched(null, graph);
        });
        step("gsp-fetch-dataset", () -> {
            // GET on the GSP endpoint without a graph: the whole dataset the caller may see.
            try (RDFConnection conn = connection().build()) {
                var dataset = conn.fetchDataset();
                JsonObject out = new JsonObject();
                out.put("defaultGraph", triples(dataset.getDefaultModel()));
                out.put("graph", triples(dataset.getNamedModel(graph)));
                return out;
            }
        });
        step("gsp-put-unlabelled", () -> {
            try (RDFConnection conn = connection().build()) { conn.put(prefix + "jena-unlabelled-graph", model(prefix + "jena-unlabelled-graph/a", "no label")); }
            return new JsonObject();
        });
        step("gsp-delete", () -> {
            withLabel(writeLabel, () -> { try (RDFConnection conn = connection().build()) { conn.delete(graph); } return null; });
            JsonObject out = new JsonObject();
            try (RDFConnection conn = connection().build()) {
                conn.fetch(graph);
                out.put("after", "found");
            } catch (HttpException e) {
                out.put("after", e.getStatusCode());
            }
            return out;
        });

        System.out.println(report.toString());
    }

    static org.apache.jena.rdfconnection.RDFConnectionRemoteBuilder connection() {
        return RDFConnectionRemote.service(base).queryEndpoint("query").updateEndpoint("update").gspEndpoint("data");
    }

    static void update(String text) {
        try (RDFConnection conn = connection().build()) {
            conn.update(text);
        }
    }

    static <T> T withLabel(String l, Callable<T> body) throws Exception {
        label = l;
        try {
            return body.call();
        } finally {
            label = null;
        }
    }

    static JsonObject graphQuery(String accept, boolean describe) {
        var builder = connection();
        // The Accept of CONSTRUCT and DESCRIBE is the connection's graph Accept (acceptHeaderQuery
        // is not used for them when that is set, and it always is).
        if (accept != null) builder.acceptHeaderGraph(accept);
        try (RDFConnection conn = builder.build()) {
            Model m = describe ? conn.queryDescribe(DESCRIBE) : conn.queryConstruct(CONSTRUCT);
            JsonObject out = new JsonObject();
            out.put("triples", triples(m));
            return out;
        }
    }

    static JsonObject readBack(String subject) {
        try (RDFConnection conn = connection().acceptHeaderSelectQuery("application/sparql-results+json").build()) {
            JsonArray rows = new JsonArray();
            conn.querySelect("SELECT ?p ?o WHERE { <" + subject + "> ?p ?o }", row -> rows.add(rowJson(row)));
            JsonObject out = new JsonObject();
            out.put("readBack", rows);
            return out;
        }
    }

    static JsonObject fetched(String accept, String graph) {
        var builder = connection();
        if (accept != null) builder.acceptHeaderGraph(accept);
        try (RDFConnection conn = builder.build()) {
            JsonObject out = new JsonObject();
            out.put("triples", triples(conn.fetch(graph)));
            return out;
        }
    }

    static Model model(String subject, String title) {
        Model m = ModelFactory.createDefaultModel();
        Resource s = m.createResource(subject);
        Property p = m.createProperty("http://example/title");
        s.addProperty(p, title);
        return m;
    }

    static JsonObject rowJson(QuerySolution row) {
        JsonObject out = new JsonObject();
        row.varNames().forEachRemaining(v -> out.put(v, NodeFmtLib.strNT(row.get(v).asNode())));
        return out;
    }

    static JsonArray triples(Model m) {
        List<String[]> list = new ArrayList<>();
        m.getGraph().find().forEachRemaining((Triple t) -> list.add(new String[] {
            t.getSubject().isBlank() ? "_:b" : NodeFmtLib.strNT(t.getSubject()),
            NodeFmtLib.strNT(t.getPredicate()),
            t.getObject().isBlank() ? "_:b" : NodeFmtLib.strNT(t.getObject()) }));
        list.sort((a, b) -> String.join(" ", a).compareTo(String.join(" ", b)));
        JsonArray out = new JsonArray();
        for (String[] t : list) {
            JsonArray triple = new JsonArray();
            for (String term : t) triple.add(term);
            out.add(triple);
        }
        return out;
    }

    static void step(String name, Step step) {
        JsonObject out;
        try {
            out = step.run();
            out.put("ok", true);
        } catch (Throwable e) {
            out = new JsonObject();
            out.put("ok", false);
            out.put("error", e.getClass().getSimpleName());
            int status = -1;
            String response = null;
            if (e instanceof QueryExceptionHTTP q) {
                status = q.getStatusCode();
                response = q.getResponse();
            } else if (e instanceof HttpException h) {
                status = h.getStatusCode();
                response = h.getResponse();
            }
            if (status > 0) out.put("status", status);
            String message = response != null ? response : String.valueOf(e.getMessage());
            out.put("message", message.length() > 2000 ? message.substring(0, 2000) : message);
            if (status <= 0) {
                StringWriter trace = new StringWriter();
                e.printStackTrace(new java.io.PrintWriter(trace));
                String t = trace.toString();
                out.put("trace", t.length() > 1500 ? t.substring(0, 1500) : t);
            }
        }
        report.put(name, out);
    }

    private Main() {}
}
