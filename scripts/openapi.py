#!/usr/bin/env python3
"""Writes the OpenAPI 3.1 document of `evtool serve`: docs/openapi.json, and the same text in
Sources/HTTPAPI/OpenAPIDocument.swift (what /openapi.json serves). A test checks that the two
match and that every route of the server is in it. Run it after changing the API."""
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent

ID = {"type": "string", "minLength": 1, "maxLength": 200}
TIME = {"type": "string", "format": "date-time"}


def ref(name):
    return {"$ref": f"#/components/schemas/{name}"}


def problem(description):
    return {"description": description, "content": {"application/problem+json": {"schema": ref("Problem")}}}


def errors(*codes):
    texts = {
        "400": "Malformed request: JSON that does not parse, a bad path (encoded '/', '..', invalid UTF-8) or query parameter",
        "401": "No valid bearer token",
        "403": "The token's role may not do this",
        "404": "No such resource",
        "405": "Method not allowed here (the Allow header names those that are)",
        "409": "Other writers kept winning; nothing was recorded, try again",
        "412": "If-Match named another version of the user's events (the ETag header has the current one)",
        "413": "The body is larger than the server accepts (--max-body)",
        "415": "The body is not application/json",
        "422": "The request breaks a rule (the field member names which); the same rules and words as the CLI",
        "500": "The store is damaged or holds an event this release cannot read",
        "503": "The store is unavailable (Retry-After says when to try again)",
    }
    return {code: problem(texts[code]) for code in codes}


READ_ERRORS = ("400", "401", "403", "404", "405", "422", "500", "503")
WRITE_ERRORS = ("400", "401", "403", "404", "405", "409", "412", "413", "415", "422", "500", "503")

USER = {"name": "user", "in": "path", "required": True, "schema": ID, "description": "The user's id"}
LISTING = {"name": "listing", "in": "path", "required": True, "schema": ID, "description": "The listing's id"}
AS_OF = {"name": "as-of", "in": "query", "required": False, "schema": {"type": "string"},
         "description": "The view as it was at a log position (a whole number) or a time (RFC 3339, or a date)"}
WRITE_HEADERS = [
    {"name": "Idempotency-Key", "in": "header", "required": False, "schema": ID,
     "description": "The command's request id: repeating the request returns the first outcome and records nothing new"},
    {"name": "If-Match", "in": "header", "required": False, "schema": {"type": "string"},
     "description": "The ETag of a read (the user's stream version, e.g. \"3\"), or *: record only at that version, else 412"},
    {"name": "X-Source", "in": "header", "required": False, "schema": ID, "description": "Which app server or client sent it (default evtool-http)"},
    {"name": "X-Correlation-ID", "in": "header", "required": False, "schema": ID, "description": "Ties together what one user interaction caused"},
    {"name": "X-Occurred-At", "in": "header", "required": False, "schema": TIME, "description": "When it happened on the client (default: now)"},
]
ETAG = {"ETag": {"description": "The user's stream version, as a strong tag", "schema": {"type": "string"}}}


def write(operation_id, summary, body=None):
    responses = {
        "201": {"description": "Recorded: the events, their positions and the stream's new version",
                "headers": {**ETAG, "Location": {"schema": {"type": "string"}, "description": "The events in the log"},
                            "Idempotent-Replayed": {"schema": {"type": "string"}, "description": "true when this repeats an earlier request's outcome"}},
                "content": {"application/json": {"schema": ref("WriteOutcome")}}},
        "200": {"description": "Nothing changed (already a favorite, not a favorite): the reason says which",
                "headers": ETAG, "content": {"application/json": {"schema": ref("WriteOutcome")}}},
        **errors(*WRITE_ERRORS),
    }
    operation = {"operationId": operation_id, "summary": summary, "tags": ["record"], "parameters": WRITE_HEADERS, "responses": responses}
    if body:
        operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": ref(body)}}}
    return operation


def read(operation_id, summary, schema, parameters=(), tags=("read",), etag=True, content="application/json"):
    ok = {"description": "OK", "content": {content: {"schema": schema}}}
    if etag:
        ok["headers"] = ETAG
    return {"operationId": operation_id, "summary": summary, "tags": list(tags), "parameters": list(parameters),
            "responses": {"200": ok, **errors(*READ_ERRORS)}}


def page_parameters(default_limit=100):
    return [
        {"name": "after", "in": "query", "required": False, "schema": {"type": "integer", "minimum": 0, "maximum": 9223372036854775807},
         "description": "Only entries after this log position (the previous page's nextAfter)"},
        {"name": "limit", "in": "query", "required": False, "schema": {"type": "integer", "minimum": 1, "maximum": 1000, "default": default_limit},
         "description": "At most this many entries"},
    ]


paths = {
    "/v1/users/{user}/searches": {"parameters": [USER], "post": write("recordSearch", "Record a search", "SearchRequest")},
    "/v1/users/{user}/favorites/{listing}": {
        "parameters": [USER, LISTING],
        "put": write("addFavorite", "Add a listing to the user's favorites, with its summary", "ListingSummary"),
        "delete": write("removeFavorite", "Remove a listing from the user's favorites"),
    },
    "/v1/users/{user}/views": {"parameters": [USER], "post": write("recordView", "Record that the user opened a listing's details", "ListingDetails")},
    "/v1/users/{user}/favorites": {"parameters": [USER], "get": read("getFavorites", "The user's favorites, in the order added", ref("Favorites"), [AS_OF])},
    "/v1/users/{user}/recent-searches": {"parameters": [USER], "get": read("getRecentSearches", "The user's recent searches, newest first", ref("Items"), [AS_OF])},
    "/v1/users/{user}/recently-viewed": {"parameters": [USER], "get": read("getRecentlyViewed", "The listings the user opened most recently", ref("Items"), [AS_OF])},
    "/v1/users/{user}/listings/{listing}": {"parameters": [USER, LISTING],
                                            "get": read("getUserListing", "A listing's details page as the user sees it", ref("UserListing"))},
    "/v1/users/{user}/history": {"parameters": [USER], "get": read("getHistory", "The user's actions in order, with metadata (auditor, admin)", ref("HistoryPage"), [
        {"name": "type", "in": "query", "required": False, "style": "form", "explode": True,
         "schema": {"type": "array", "items": {"type": "string", "enum": ["Searched", "Favorited", "Unfavorited", "DetailsViewed"]}},
         "description": "Only events of these types"},
        {"name": "since", "in": "query", "required": False, "schema": TIME, "description": "Only actions recorded at or after this time"},
        {"name": "until", "in": "query", "required": False, "schema": TIME, "description": "Only actions recorded before this time"},
        AS_OF, *page_parameters()], tags=("audit",))},
    "/v1/listings/{listing}/details": {"parameters": [LISTING], "get": read("getListingDetails", "The cached details of a listing (the latest any user fetched)",
                                                                            ref("CachedDetails"), [AS_OF], etag=False)},
    "/v1/log": {"get": read("getLog", "The whole log in position order, a page at a time (auditor, admin)", ref("LogPage"), page_parameters(), tags=("audit",), etag=False)},
    "/v1/log/stream": {"get": read("streamLog", "The log as Server-Sent Events (id: the position), resuming after Last-Event-ID, with heartbeats",
                                   {"type": "string"}, [
                                       {"name": "Last-Event-ID", "in": "header", "required": False, "schema": {"type": "string", "pattern": "^[0-9]+$"},
                                        "description": "Resume after this position"},
                                       {"name": "after", "in": "query", "required": False, "schema": {"type": "integer", "minimum": 0}}],
                                   tags=("audit",), etag=False, content="text/event-stream")},
    "/v1/stats": {"get": read("getStats", "Counts of the log and the views' checkpoints (auditor, admin)", ref("Stats"), tags=("audit",), etag=False)},
    "/healthz": {"get": {"operationId": "health", "summary": "The server is alive", "tags": ["operate"], "security": [],
                         "responses": {"200": {"description": "Alive", "content": {"application/json": {"schema": {"type": "object"}}}}}}},
    "/readyz": {"get": {"operationId": "ready", "summary": "The store answers", "tags": ["operate"], "security": [],
                        "responses": {"200": {"description": "Ready", "content": {"application/json": {"schema": {"type": "object"}}}},
                                      **errors("500", "503")}}},
    "/metrics": {"get": {"operationId": "metrics", "summary": "Prometheus text exposition (auditor, admin)", "tags": ["operate"],
                         "responses": {"200": {"description": "Metrics", "content": {"text/plain": {"schema": {"type": "string"}}}},
                                       **errors("401", "403")}}},
    "/openapi.json": {"get": {"operationId": "openapi", "summary": "This document", "tags": ["operate"], "security": [],
                              "responses": {"200": {"description": "The OpenAPI document", "content": {"application/json": {"schema": {"type": "object"}}}}}}},
}

TEXT = {"type": "string", "maxLength": 2000}
schemas = {
    "Problem": {"type": "object", "required": ["type", "title", "status", "detail"], "properties": {
        "type": {"type": "string", "description": "/problems/KIND: malformed-request, invalid-path, unauthorized, forbidden, not-found, method-not-allowed, conflict, precondition-failed, body-too-large, unsupported-media-type, validation, unavailable, server-error"},
        "title": {"type": "string"}, "status": {"type": "integer"}, "detail": {"type": "string"},
        "field": {"type": "string", "description": "The field or parameter at fault"}}},
    "WriteOutcome": {"type": "object", "required": ["outcome", "user", "type", "version", "replayed"], "properties": {
        "outcome": {"type": "string", "enum": ["recorded", "unchanged"]}, "user": {"type": "string"},
        "type": {"type": "string", "enum": ["Searched", "Favorited", "Unfavorited", "DetailsViewed"]},
        "version": {"type": "integer", "description": "The user's stream version after the request (the ETag)"},
        "position": {"type": "integer"}, "positions": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
        "eventIDs": {"type": "array", "items": {"type": "string", "format": "uuid"}},
        "reason": {"type": "string"}, "replayed": {"type": "boolean"}}},
    "SearchRequest": {"type": "object", "required": ["keyword"], "properties": {
        "keyword": TEXT, "category": {"type": "string", "enum": ["All", "Music", "Sports", "Arts & Theatre", "Film", "Miscellaneous"]},
        "distance": {"type": "number", "exclusiveMinimum": 0}, "units": {"type": "string", "enum": ["miles", "km"]},
        "here": {"type": "object", "required": ["latitude", "longitude"], "properties": {
            "latitude": {"type": "number", "minimum": -90, "maximum": 90}, "longitude": {"type": "number", "minimum": -180, "maximum": 180}}},
        "location": TEXT,
        "results": {"type": "object", "required": ["count", "listingIDs"], "properties": {
            "count": {"type": "integer", "minimum": 0}, "listingIDs": {"type": "array", "items": ID}}}},
        "description": "Exactly one of here and location"},
    "ListingSummary": {"type": "object", "required": ["name", "venue", "localDateTime", "category"], "properties": {
        "name": TEXT, "venue": TEXT, "localDateTime": TEXT, "category": TEXT}},
    "ListingDetails": {"type": "object", "required": ["listingID", "info", "upcomingEvents"], "properties": {
        "listingID": ID,
        "info": {"type": "object", "required": ["name", "artistsOrTeams", "genres"], "properties": {
            "name": TEXT, "artistsOrTeams": {"type": "array", "items": TEXT}, "venue": TEXT, "localDateTime": TEXT, "category": TEXT,
            "genres": {"type": "array", "items": TEXT},
            "priceRange": {"type": "object", "required": ["minimum", "maximum"], "properties": {
                "minimum": {"type": "number"}, "maximum": {"type": "number"}, "currency": TEXT}},
            "ticketStatus": TEXT, "ticketLink": TEXT, "seatMapLink": TEXT}},
        "artists": {"type": "array", "items": {"type": "object", "required": ["name", "albumCovers"], "properties": {
            "name": TEXT, "followers": {"type": "integer"}, "popularity": {"type": "integer"}, "profileLink": TEXT,
            "albumCovers": {"type": "array", "items": TEXT}}}},
        "venue": {"type": "object", "required": ["name"], "properties": {"name": TEXT}},
        "upcomingEvents": {"type": "array", "items": {"type": "object", "required": ["name"], "properties": {"name": TEXT}}}},
        "description": "As in docs/EVENTS.md (DetailsViewed)"},
    "Favorites": {"type": "object", "required": ["items"], "properties": {"items": {"type": "array", "items": {
        "type": "object", "required": ["listingID", "summary", "addedAt"], "properties": {
            "listingID": {"type": "string"}, "summary": ref("ListingSummary"), "addedAt": TIME}}}}},
    "Items": {"type": "object", "required": ["items"], "properties": {"items": {"type": "array", "items": {"type": "object"}}}},
    "CachedDetails": {"type": "object", "description": "The cached details document (details, fetchedAt, fetchedBy, views)"},
    "UserListing": {"type": "object", "required": ["listingID", "favorite", "details"], "properties": {
        "listingID": {"type": "string"}, "favorite": {"type": "boolean", "description": "Show 'Remove' when true, 'Save Event' when false"},
        "details": {"oneOf": [ref("CachedDetails"), {"type": "null"}]}}},
    "HistoryPage": {"type": "object", "required": ["items", "nextAfter"], "properties": {
        "items": {"type": "array", "items": {"allOf": [ref("Event"), {"type": "object", "required": ["summary"], "properties": {
            "summary": {"type": "string", "description": "The line 'evtool history' shows"}}}]}},
        "nextAfter": {"type": ["integer", "null"], "description": "Pass as after= for the next page; null on the last"}}},
    "Event": {"type": "object", "description": "The one JSON shape of an event (docs/EVENTS.md, docs/schemas/event.schema.json): "
              "data and metadata are the stored JSON, or strings in dataText/metadataText when they hold a line break",
              "required": ["position", "stream", "version", "id", "type", "recordedAt", "hash"],
              "allOf": [{"anyOf": [{"required": ["data"]}, {"required": ["dataText"]}]}, {"anyOf": [{"required": ["metadata"]}, {"required": ["metadataText"]}]}],
              "properties": {
        "position": {"type": "integer"}, "stream": {"type": "string"}, "version": {"type": "integer"}, "id": {"type": "string", "format": "uuid"},
        "type": {"type": "string"}, "recordedAt": TIME, "hash": {"type": "string"}, "data": {}, "metadata": {"type": "object"},
        "dataText": {"type": "string"}, "metadataText": {"type": "string"}}},
    "LogPage": {"type": "object", "required": ["events", "nextAfter"], "properties": {
        "events": {"type": "array", "items": ref("Event")}, "nextAfter": {"type": "integer"}}},
    "Stats": {"type": "object", "required": ["events", "streams", "users", "head", "types", "projections"], "properties": {
        "events": {"type": "integer"}, "streams": {"type": "integer"}, "users": {"type": "integer"}, "head": {"type": "integer"},
        "types": {"type": "object", "additionalProperties": {"type": "integer"}},
        "projections": {"type": "array", "items": {"type": "object"}}}},
}

document = {
    "openapi": "3.1.0",
    "info": {"title": "evtool", "version": "1",
             "description": "Record and read what the users of an event-discovery app do (see docs/HTTP.md). Errors are RFC 9457 problem documents."},
    "servers": [{"url": "http://127.0.0.1:8080"}],
    "security": [{"bearer": []}],
    "paths": paths,
    "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                                                  "description": "A token from 'evtool token create' with role app, auditor or admin"}},
                   "schemas": schemas},
}
text = json.dumps(document, indent=2, ensure_ascii=False)
(ROOT / "docs/openapi.json").write_text(text + "\n")
assert '"""#' not in text
(ROOT / "Sources/HTTPAPI/OpenAPIDocument.swift").write_text(
    "// Written by scripts/openapi.py from the same source as docs/openapi.json; do not edit by hand.\n\n"
    "/// The OpenAPI 3.1 document served at `/openapi.json` (the same text as docs/openapi.json).\n"
    "public enum OpenAPIDocument {\n"
    "    /// The document's JSON text.\n"
    "    public static let text = #\"\"\"\n" + text + "\n\"\"\"#\n}\n")
print("wrote docs/openapi.json and Sources/HTTPAPI/OpenAPIDocument.swift")
