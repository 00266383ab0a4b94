"""Shared by the client scripts: arguments, the bearer token, terms as N-Triples strings, and the
JSON report. Each step is run on its own; a step that raises is reported with the HTTP status and
the server's message (when the client exposes them) and the remaining steps still run.

The token comes from the environment (IANODE_TOKEN), never the command line, so it does not show
in a process listing; it is never printed.
"""
import argparse
import json
import os
import sys
import traceback
import urllib.error

from rdflib import BNode, Literal, URIRef

XSD = "http://www.w3.org/2001/XMLSchema#"


def arguments(description):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--query", required=True, help="SPARQL query endpoint URL, e.g. http://localhost:3030/ds/query")
    parser.add_argument("--update", required=True, help="SPARQL update endpoint URL, e.g. http://localhost:3030/ds/update")
    parser.add_argument("--gsp", required=True, help="Graph Store Protocol endpoint URL, e.g. http://localhost:3030/ds/data")
    parser.add_argument("--prefix", required=True, help="IRI prefix for what this run writes, unique per run")
    parser.add_argument("--label", default="employee", help="the Security-Label of the labelled writes")
    args = parser.parse_args()
    args.token = os.environ.get("IANODE_TOKEN", "")
    if not args.token:
        parser.error("set IANODE_TOKEN to a bearer token")
    return args


def term(value):
    """An rdflib term (or None) as its N-Triples string; blank nodes as `_:b` (their ids are not stable)."""
    if value is None:
        return None
    if isinstance(value, BNode):
        return "_:b"
    if isinstance(value, (URIRef, Literal)):
        return value.n3()
    return str(value)


def json_term(binding):
    """A SPARQL JSON results binding ({type, value, datatype?, xml:lang?}) as an N-Triples string."""
    kind = binding["type"]
    if kind == "uri":
        return URIRef(binding["value"]).n3()
    if kind == "bnode":
        return "_:b"
    return Literal(binding["value"], lang=binding.get("xml:lang"), datatype=binding.get("datatype")).n3()


def triples(graph):
    """An rdflib graph's triples as sorted [s, p, o] N-Triples strings."""
    return sorted([term(s), term(p), term(o)] for s, p, o in graph)


class Report:
    def __init__(self):
        self.steps = {}

    def step(self, name):
        """Decorator: runs the function now and records its result (or its failure) under `name`."""

        def run(function):
            try:
                self.steps[name] = {"ok": True, **function()}
            except Exception as error:  # noqa: BLE001 - every failure is reported, none stops the run
                self.steps[name] = failure(error)
            return function

        return run

    def print(self):
        json.dump(self.steps, sys.stdout, indent=1, sort_keys=True)
        sys.stdout.write("\n")


def failure(error):
    """What a failed step reports: the exception class, the HTTP status when known, the message."""
    out = {"ok": False, "error": type(error).__name__, "message": str(error)[:2000]}
    status = None
    # rdflib's SPARQLStore raises a ValueError ("You did something wrong ...") from the HTTPError:
    # the status and the server's message are on the error it was raised from.
    cause = error
    while cause is not None and not isinstance(cause, urllib.error.HTTPError):
        cause = cause.__cause__ or cause.__context__
    if cause is not None:
        status = cause.code
        try:
            body = cause.read().decode("utf-8", "replace")
            if body:  # SPARQLWrapper has read it already, into its own exception's message
                out["message"] = body[:2000]
        except Exception:  # noqa: BLE001
            pass
    # SPARQLWrapper maps statuses to exception classes and keeps the body in the message.
    status = status or {
        "QueryBadFormed": 400,
        "Unauthorized": 401,
        "EndPointNotFound": 404,
        "URITooLong": 414,
        "EndPointInternalError": 500,
    }.get(type(error).__name__)
    if isinstance(status, int):
        out["status"] = status
    if status is None:
        out["trace"] = traceback.format_exc(limit=3)[-1500:]
    return out
