// Written by scripts/openapi.py from the same source as docs/openapi.json; do not edit by hand.

/// The OpenAPI 3.1 document served at `/openapi.json` (the same text as docs/openapi.json).
public enum OpenAPIDocument {
    /// The document's JSON text.
    public static let text = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "evtool",
    "version": "1",
    "description": "Record and read what the users of an event-discovery app do (see docs/HTTP.md). Errors are RFC 9457 problem documents."
  },
  "servers": [
    {
      "url": "http://127.0.0.1:8080"
    }
  ],
  "security": [
    {
      "bearer": []
    }
  ],
  "paths": {
    "/v1/users/{user}/searches": {
      "parameters": [
        {
          "name": "user",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200
          },
          "description": "The user's id"
        }
      ],
      "post": {
        "operationId": "recordSearch",
        "summary": "Record a search",
        "tags": [
          "record"
        ],
        "parameters": [
          {
            "name": "Idempotency-Key",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 200
            },
            "description": "The command's request id: repeating the request returns the first outcome and records nothing new"
          },
          {
            "name": "If-Match",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "The ETag of a read (the user's stream version, e.g. \"3\"), or *: record only at that version, else 412"
          },
          {
            "name": "X-Source",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 200
            },
            "description": "Which app server or client sent it (default evtool-http)"
          },
          {
            "name": "X-Correlation-ID",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 200
            },
            "description": "Ties together what one user interaction caused"
          },
          {
            "name": "X-Occurred-At",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string",
              "format": "date-time"
            },
            "description": "When it happened on the client (default: now)"
          }
        ],
        "responses": {
          "201": {
            "description": "Recorded: the events, their positions and the stream's new version",
            "headers": {
              "ETag": {
                "description": "The user's stream version, as a strong tag",
                "schema": {
                  "type": "string"
                }
              },
              "Location": {
                "schema": {
                  "type": "string"
                },
                "description": "The events in the log"
              },
              "Idempotent-Replayed": {
                "schema": {
                  "type": "string"
                },
                "description": "true when this repeats an earlier request's outcome"
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/WriteOutcome"
                }
              }
            }
          },
          "200": {
            "description": "Nothing changed (already a favorite, not a favorite): the reason says which",
            "headers": {
              "ETag": {
                "description": "The user's stream version, as a strong tag",
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/WriteOutcome"
                }
              }
            }
          },
          "400": {
            "description": "Malformed request: JSON that does not parse, a bad path (encoded '/', '..', invalid UTF-8) or query parameter",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "No valid bearer token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "403": {
            "description": "The token's role may not do this",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "No such resource",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "405": {
            "description": "Method not allowed here (the Allow header names those that are)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "409": {
            "description": "Other writers kept winning; nothing was recorded, try again",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "412": {
            "description": "If-Match named another version of the user's events (the ETag header has the current one)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "413": {
            "description": "The body is larger than the server accepts (--max-body)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "415": {
            "description": "The body is not application/json",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "422": {
            "description": "The request breaks a rule (the field member names which); the same rules and words as the CLI",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "description": "The store is damaged or holds an event this release cannot read",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "503": {
            "description": "The store is unavailable (Retry-After says when to try again)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        },
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/SearchRequest"
              }
            }
          }
        }
      }
    },
    "/v1/users/{user}/favorites/{listing}": {
      "parameters": [
        {
          "name": "user",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200
          },
          "description": "The user's id"
        },
        {
          "name": "listing",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200
          },
          "description": "The listing's id"
        }
      ],
      "put": {
        "operationId": "addFavorite",
        "summary": "Add a listing to the user's favorites, with its summary",
        "tags": [
          "record"
        ],
        "parameters": [
          {
            "name": "Idempotency-Key",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 200
            },
            "description": "The command's request id: repeating the request returns the first outcome and records nothing new"
          },
          {
            "name": "If-Match",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "The ETag of a read (the user's stream version, e.g. \"3\"), or *: record only at that version, else 412"
          },
          {
            "name": "X-Source",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 200
            },
            "description": "Which app server or client sent it (default evtool-http)"
          },
          {
            "name": "X-Correlation-ID",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 200
            },
            "description": "Ties together what one user interaction caused"
          },
          {
            "name": "X-Occurred-At",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string",
              "format": "date-time"
            },
            "description": "When it happened on the client (default: now)"
          }
        ],
        "responses": {
          "201": {
            "description": "Recorded: the events, their positions and the stream's new version",
            "headers": {
              "ETag": {
                "description": "The user's stream version, as a strong tag",
                "schema": {
                  "type": "string"
                }
              },
              "Location": {
                "schema": {
                  "type": "string"
                },
                "description": "The events in the log"
              },
              "Idempotent-Replayed": {
                "schema": {
                  "type": "string"
                },
                "description": "true when this repeats an earlier request's outcome"
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/WriteOutcome"
                }
              }
            }
          },
          "200": {
            "description": "Nothing changed (already a favorite, not a favorite): the reason says which",
            "headers": {
              "ETag": {
                "description": "The user's stream version, as a strong tag",
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/WriteOutcome"
                }
              }
            }
          },
          "400": {
            "description": "Malformed request: JSON that does not parse, a bad path (encoded '/', '..', invalid UTF-8) or query parameter",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "No valid bearer token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "403": {
            "description": "The token's role may not do this",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "No such resource",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "405": {
            "description": "Method not allowed here (the Allow header names those that are)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "409": {
            "description": "Other writers kept winning; nothing was recorded, try again",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "412": {
            "description": "If-Match named another version of the user's events (the ETag header has the current one)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "413": {
            "description": "The body is larger than the server accepts (--max-body)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "415": {
            "description": "The body is not application/json",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "422": {
            "description": "The request breaks a rule (the field member names which); the same rules and words as the CLI",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "description": "The store is damaged or holds an event this release cannot read",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "503": {
            "description": "The store is unavailable (Retry-After says when to try again)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        },
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/ListingSummary"
              }
            }
          }
        }
      },
      "delete": {
        "operationId": "removeFavorite",
        "summary": "Remove a listing from the user's favorites",
        "tags": [
          "record"
        ],
        "parameters": [
          {
            "name": "Idempotency-Key",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 200
            },
            "description": "The command's request id: repeating the request returns the first outcome and records nothing new"
          },
          {
            "name": "If-Match",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "The ETag of a read (the user's stream version, e.g. \"3\"), or *: record only at that version, else 412"
          },
          {
            "name": "X-Source",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 200
            },
            "description": "Which app server or client sent it (default evtool-http)"
          },
          {
            "name": "X-Correlation-ID",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 200
            },
            "description": "Ties together what one user interaction caused"
          },
          {
            "name": "X-Occurred-At",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string",
              "format": "date-time"
            },
            "description": "When it happened on the client (default: now)"
          }
        ],
        "responses": {
          "201": {
            "description": "Recorded: the events, their positions and the stream's new version",
            "headers": {
              "ETag": {
                "description": "The user's stream version, as a strong tag",
                "schema": {
                  "type": "string"
                }
              },
              "Location": {
                "schema": {
                  "type": "string"
                },
                "description": "The events in the log"
              },
              "Idempotent-Replayed": {
                "schema": {
                  "type": "string"
                },
                "description": "true when this repeats an earlier request's outcome"
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/WriteOutcome"
                }
              }
            }
          },
          "200": {
            "description": "Nothing changed (already a favorite, not a favorite): the reason says which",
            "headers": {
              "ETag": {
                "description": "The user's stream version, as a strong tag",
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/WriteOutcome"
                }
              }
            }
          },
          "400": {
            "description": "Malformed request: JSON that does not parse, a bad path (encoded '/', '..', invalid UTF-8) or query parameter",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "No valid bearer token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "403": {
            "description": "The token's role may not do this",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "No such resource",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "405": {
            "description": "Method not allowed here (the Allow header names those that are)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "409": {
            "description": "Other writers kept winning; nothing was recorded, try again",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "412": {
            "description": "If-Match named another version of the user's events (the ETag header has the current one)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "413": {
            "description": "The body is larger than the server accepts (--max-body)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "415": {
            "description": "The body is not application/json",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "422": {
            "description": "The request breaks a rule (the field member names which); the same rules and words as the CLI",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "description": "The store is damaged or holds an event this release cannot read",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "503": {
            "description": "The store is unavailable (Retry-After says when to try again)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/users/{user}/views": {
      "parameters": [
        {
          "name": "user",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200
          },
          "description": "The user's id"
        }
      ],
      "post": {
        "operationId": "recordView",
        "summary": "Record that the user opened a listing's details",
        "tags": [
          "record"
        ],
        "parameters": [
          {
            "name": "Idempotency-Key",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 200
            },
            "description": "The command's request id: repeating the request returns the first outcome and records nothing new"
          },
          {
            "name": "If-Match",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "The ETag of a read (the user's stream version, e.g. \"3\"), or *: record only at that version, else 412"
          },
          {
            "name": "X-Source",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 200
            },
            "description": "Which app server or client sent it (default evtool-http)"
          },
          {
            "name": "X-Correlation-ID",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string",
              "minLength": 1,
              "maxLength": 200
            },
            "description": "Ties together what one user interaction caused"
          },
          {
            "name": "X-Occurred-At",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string",
              "format": "date-time"
            },
            "description": "When it happened on the client (default: now)"
          }
        ],
        "responses": {
          "201": {
            "description": "Recorded: the events, their positions and the stream's new version",
            "headers": {
              "ETag": {
                "description": "The user's stream version, as a strong tag",
                "schema": {
                  "type": "string"
                }
              },
              "Location": {
                "schema": {
                  "type": "string"
                },
                "description": "The events in the log"
              },
              "Idempotent-Replayed": {
                "schema": {
                  "type": "string"
                },
                "description": "true when this repeats an earlier request's outcome"
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/WriteOutcome"
                }
              }
            }
          },
          "200": {
            "description": "Nothing changed (already a favorite, not a favorite): the reason says which",
            "headers": {
              "ETag": {
                "description": "The user's stream version, as a strong tag",
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/WriteOutcome"
                }
              }
            }
          },
          "400": {
            "description": "Malformed request: JSON that does not parse, a bad path (encoded '/', '..', invalid UTF-8) or query parameter",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "No valid bearer token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "403": {
            "description": "The token's role may not do this",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "No such resource",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "405": {
            "description": "Method not allowed here (the Allow header names those that are)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "409": {
            "description": "Other writers kept winning; nothing was recorded, try again",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "412": {
            "description": "If-Match named another version of the user's events (the ETag header has the current one)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "413": {
            "description": "The body is larger than the server accepts (--max-body)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "415": {
            "description": "The body is not application/json",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "422": {
            "description": "The request breaks a rule (the field member names which); the same rules and words as the CLI",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "description": "The store is damaged or holds an event this release cannot read",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "503": {
            "description": "The store is unavailable (Retry-After says when to try again)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        },
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/ListingDetails"
              }
            }
          }
        }
      }
    },
    "/v1/users/{user}/favorites": {
      "parameters": [
        {
          "name": "user",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200
          },
          "description": "The user's id"
        }
      ],
      "get": {
        "operationId": "getFavorites",
        "summary": "The user's favorites, in the order added",
        "tags": [
          "read"
        ],
        "parameters": [
          {
            "name": "as-of",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "The view as it was at a log position (a whole number) or a time (RFC 3339, or a date)"
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Favorites"
                }
              }
            },
            "headers": {
              "ETag": {
                "description": "The user's stream version, as a strong tag",
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "400": {
            "description": "Malformed request: JSON that does not parse, a bad path (encoded '/', '..', invalid UTF-8) or query parameter",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "No valid bearer token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "403": {
            "description": "The token's role may not do this",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "No such resource",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "405": {
            "description": "Method not allowed here (the Allow header names those that are)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "422": {
            "description": "The request breaks a rule (the field member names which); the same rules and words as the CLI",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "description": "The store is damaged or holds an event this release cannot read",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "503": {
            "description": "The store is unavailable (Retry-After says when to try again)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/users/{user}/recent-searches": {
      "parameters": [
        {
          "name": "user",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200
          },
          "description": "The user's id"
        }
      ],
      "get": {
        "operationId": "getRecentSearches",
        "summary": "The user's recent searches, newest first",
        "tags": [
          "read"
        ],
        "parameters": [
          {
            "name": "as-of",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "The view as it was at a log position (a whole number) or a time (RFC 3339, or a date)"
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Items"
                }
              }
            },
            "headers": {
              "ETag": {
                "description": "The user's stream version, as a strong tag",
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "400": {
            "description": "Malformed request: JSON that does not parse, a bad path (encoded '/', '..', invalid UTF-8) or query parameter",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "No valid bearer token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "403": {
            "description": "The token's role may not do this",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "No such resource",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "405": {
            "description": "Method not allowed here (the Allow header names those that are)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "422": {
            "description": "The request breaks a rule (the field member names which); the same rules and words as the CLI",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "description": "The store is damaged or holds an event this release cannot read",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "503": {
            "description": "The store is unavailable (Retry-After says when to try again)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/users/{user}/recently-viewed": {
      "parameters": [
        {
          "name": "user",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200
          },
          "description": "The user's id"
        }
      ],
      "get": {
        "operationId": "getRecentlyViewed",
        "summary": "The listings the user opened most recently",
        "tags": [
          "read"
        ],
        "parameters": [
          {
            "name": "as-of",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "The view as it was at a log position (a whole number) or a time (RFC 3339, or a date)"
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Items"
                }
              }
            },
            "headers": {
              "ETag": {
                "description": "The user's stream version, as a strong tag",
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "400": {
            "description": "Malformed request: JSON that does not parse, a bad path (encoded '/', '..', invalid UTF-8) or query parameter",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "No valid bearer token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "403": {
            "description": "The token's role may not do this",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "No such resource",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "405": {
            "description": "Method not allowed here (the Allow header names those that are)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "422": {
            "description": "The request breaks a rule (the field member names which); the same rules and words as the CLI",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "description": "The store is damaged or holds an event this release cannot read",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "503": {
            "description": "The store is unavailable (Retry-After says when to try again)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/users/{user}/listings/{listing}": {
      "parameters": [
        {
          "name": "user",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200
          },
          "description": "The user's id"
        },
        {
          "name": "listing",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200
          },
          "description": "The listing's id"
        }
      ],
      "get": {
        "operationId": "getUserListing",
        "summary": "A listing's details page as the user sees it",
        "tags": [
          "read"
        ],
        "parameters": [],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/UserListing"
                }
              }
            },
            "headers": {
              "ETag": {
                "description": "The user's stream version, as a strong tag",
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "400": {
            "description": "Malformed request: JSON that does not parse, a bad path (encoded '/', '..', invalid UTF-8) or query parameter",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "No valid bearer token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "403": {
            "description": "The token's role may not do this",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "No such resource",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "405": {
            "description": "Method not allowed here (the Allow header names those that are)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "422": {
            "description": "The request breaks a rule (the field member names which); the same rules and words as the CLI",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "description": "The store is damaged or holds an event this release cannot read",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "503": {
            "description": "The store is unavailable (Retry-After says when to try again)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/users/{user}/history": {
      "parameters": [
        {
          "name": "user",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200
          },
          "description": "The user's id"
        }
      ],
      "get": {
        "operationId": "getHistory",
        "summary": "The user's actions in order, with metadata (auditor, admin)",
        "tags": [
          "audit"
        ],
        "parameters": [
          {
            "name": "type",
            "in": "query",
            "required": false,
            "style": "form",
            "explode": true,
            "schema": {
              "type": "array",
              "items": {
                "type": "string",
                "enum": [
                  "Searched",
                  "Favorited",
                  "Unfavorited",
                  "DetailsViewed"
                ]
              }
            },
            "description": "Only events of these types"
          },
          {
            "name": "since",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string",
              "format": "date-time"
            },
            "description": "Only actions recorded at or after this time"
          },
          {
            "name": "until",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string",
              "format": "date-time"
            },
            "description": "Only actions recorded before this time"
          },
          {
            "name": "as-of",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "The view as it was at a log position (a whole number) or a time (RFC 3339, or a date)"
          },
          {
            "name": "after",
            "in": "query",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 9223372036854775807
            },
            "description": "Only entries after this log position (the previous page's nextAfter)"
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 1000,
              "default": 100
            },
            "description": "At most this many entries"
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/HistoryPage"
                }
              }
            },
            "headers": {
              "ETag": {
                "description": "The user's stream version, as a strong tag",
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "400": {
            "description": "Malformed request: JSON that does not parse, a bad path (encoded '/', '..', invalid UTF-8) or query parameter",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "No valid bearer token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "403": {
            "description": "The token's role may not do this",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "No such resource",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "405": {
            "description": "Method not allowed here (the Allow header names those that are)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "422": {
            "description": "The request breaks a rule (the field member names which); the same rules and words as the CLI",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "description": "The store is damaged or holds an event this release cannot read",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "503": {
            "description": "The store is unavailable (Retry-After says when to try again)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/listings/{listing}/details": {
      "parameters": [
        {
          "name": "listing",
          "in": "path",
          "required": true,
          "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200
          },
          "description": "The listing's id"
        }
      ],
      "get": {
        "operationId": "getListingDetails",
        "summary": "The cached details of a listing (the latest any user fetched)",
        "tags": [
          "read"
        ],
        "parameters": [
          {
            "name": "as-of",
            "in": "query",
            "required": false,
            "schema": {
              "type": "string"
            },
            "description": "The view as it was at a log position (a whole number) or a time (RFC 3339, or a date)"
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/CachedDetails"
                }
              }
            }
          },
          "400": {
            "description": "Malformed request: JSON that does not parse, a bad path (encoded '/', '..', invalid UTF-8) or query parameter",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "No valid bearer token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "403": {
            "description": "The token's role may not do this",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "No such resource",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "405": {
            "description": "Method not allowed here (the Allow header names those that are)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "422": {
            "description": "The request breaks a rule (the field member names which); the same rules and words as the CLI",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "description": "The store is damaged or holds an event this release cannot read",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "503": {
            "description": "The store is unavailable (Retry-After says when to try again)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/log": {
      "get": {
        "operationId": "getLog",
        "summary": "The whole log in position order, a page at a time (auditor, admin)",
        "tags": [
          "audit"
        ],
        "parameters": [
          {
            "name": "after",
            "in": "query",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 0,
              "maximum": 9223372036854775807
            },
            "description": "Only entries after this log position (the previous page's nextAfter)"
          },
          {
            "name": "limit",
            "in": "query",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 1000,
              "default": 100
            },
            "description": "At most this many entries"
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/LogPage"
                }
              }
            }
          },
          "400": {
            "description": "Malformed request: JSON that does not parse, a bad path (encoded '/', '..', invalid UTF-8) or query parameter",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "No valid bearer token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "403": {
            "description": "The token's role may not do this",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "No such resource",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "405": {
            "description": "Method not allowed here (the Allow header names those that are)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "422": {
            "description": "The request breaks a rule (the field member names which); the same rules and words as the CLI",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "description": "The store is damaged or holds an event this release cannot read",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "503": {
            "description": "The store is unavailable (Retry-After says when to try again)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/log/stream": {
      "get": {
        "operationId": "streamLog",
        "summary": "The log as Server-Sent Events (id: the position), resuming after Last-Event-ID, with heartbeats",
        "tags": [
          "audit"
        ],
        "parameters": [
          {
            "name": "Last-Event-ID",
            "in": "header",
            "required": false,
            "schema": {
              "type": "string",
              "pattern": "^[0-9]+$"
            },
            "description": "Resume after this position"
          },
          {
            "name": "after",
            "in": "query",
            "required": false,
            "schema": {
              "type": "integer",
              "minimum": 0
            }
          }
        ],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "text/event-stream": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "400": {
            "description": "Malformed request: JSON that does not parse, a bad path (encoded '/', '..', invalid UTF-8) or query parameter",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "No valid bearer token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "403": {
            "description": "The token's role may not do this",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "No such resource",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "405": {
            "description": "Method not allowed here (the Allow header names those that are)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "422": {
            "description": "The request breaks a rule (the field member names which); the same rules and words as the CLI",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "description": "The store is damaged or holds an event this release cannot read",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "503": {
            "description": "The store is unavailable (Retry-After says when to try again)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/v1/stats": {
      "get": {
        "operationId": "getStats",
        "summary": "Counts of the log and the views' checkpoints (auditor, admin)",
        "tags": [
          "audit"
        ],
        "parameters": [],
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Stats"
                }
              }
            }
          },
          "400": {
            "description": "Malformed request: JSON that does not parse, a bad path (encoded '/', '..', invalid UTF-8) or query parameter",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "401": {
            "description": "No valid bearer token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "403": {
            "description": "The token's role may not do this",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "404": {
            "description": "No such resource",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "405": {
            "description": "Method not allowed here (the Allow header names those that are)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "422": {
            "description": "The request breaks a rule (the field member names which); the same rules and words as the CLI",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "500": {
            "description": "The store is damaged or holds an event this release cannot read",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "503": {
            "description": "The store is unavailable (Retry-After says when to try again)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/healthz": {
      "get": {
        "operationId": "health",
        "summary": "The server is alive",
        "tags": [
          "operate"
        ],
        "security": [],
        "responses": {
          "200": {
            "description": "Alive",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            }
          }
        }
      }
    },
    "/readyz": {
      "get": {
        "operationId": "ready",
        "summary": "The store answers",
        "tags": [
          "operate"
        ],
        "security": [],
        "responses": {
          "200": {
            "description": "Ready",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            }
          },
          "500": {
            "description": "The store is damaged or holds an event this release cannot read",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "503": {
            "description": "The store is unavailable (Retry-After says when to try again)",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/metrics": {
      "get": {
        "operationId": "metrics",
        "summary": "Prometheus text exposition (auditor, admin)",
        "tags": [
          "operate"
        ],
        "responses": {
          "200": {
            "description": "Metrics",
            "content": {
              "text/plain": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "401": {
            "description": "No valid bearer token",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          },
          "403": {
            "description": "The token's role may not do this",
            "content": {
              "application/problem+json": {
                "schema": {
                  "$ref": "#/components/schemas/Problem"
                }
              }
            }
          }
        }
      }
    },
    "/openapi.json": {
      "get": {
        "operationId": "openapi",
        "summary": "This document",
        "tags": [
          "operate"
        ],
        "security": [],
        "responses": {
          "200": {
            "description": "The OpenAPI document",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            }
          }
        }
      }
    }
  },
  "components": {
    "securitySchemes": {
      "bearer": {
        "type": "http",
        "scheme": "bearer",
        "description": "A token from 'evtool token create' with role app, auditor or admin"
      }
    },
    "schemas": {
      "Problem": {
        "type": "object",
        "required": [
          "type",
          "title",
          "status",
          "detail"
        ],
        "properties": {
          "type": {
            "type": "string",
            "description": "/problems/KIND: malformed-request, invalid-path, unauthorized, forbidden, not-found, method-not-allowed, conflict, precondition-failed, body-too-large, unsupported-media-type, validation, unavailable, server-error"
          },
          "title": {
            "type": "string"
          },
          "status": {
            "type": "integer"
          },
          "detail": {
            "type": "string"
          },
          "field": {
            "type": "string",
            "description": "The field or parameter at fault"
          }
        }
      },
      "WriteOutcome": {
        "type": "object",
        "required": [
          "outcome",
          "user",
          "type",
          "version",
          "replayed"
        ],
        "properties": {
          "outcome": {
            "type": "string",
            "enum": [
              "recorded",
              "unchanged"
            ]
          },
          "user": {
            "type": "string"
          },
          "type": {
            "type": "string",
            "enum": [
              "Searched",
              "Favorited",
              "Unfavorited",
              "DetailsViewed"
            ]
          },
          "version": {
            "type": "integer",
            "description": "The user's stream version after the request (the ETag)"
          },
          "position": {
            "type": "integer"
          },
          "positions": {
            "type": "array",
            "items": {
              "type": "integer"
            },
            "minItems": 2,
            "maxItems": 2
          },
          "eventIDs": {
            "type": "array",
            "items": {
              "type": "string",
              "format": "uuid"
            }
          },
          "reason": {
            "type": "string"
          },
          "replayed": {
            "type": "boolean"
          }
        }
      },
      "SearchRequest": {
        "type": "object",
        "required": [
          "keyword"
        ],
        "properties": {
          "keyword": {
            "type": "string",
            "maxLength": 2000
          },
          "category": {
            "type": "string",
            "enum": [
              "All",
              "Music",
              "Sports",
              "Arts & Theatre",
              "Film",
              "Miscellaneous"
            ]
          },
          "distance": {
            "type": "number",
            "exclusiveMinimum": 0
          },
          "units": {
            "type": "string",
            "enum": [
              "miles",
              "km"
            ]
          },
          "here": {
            "type": "object",
            "required": [
              "latitude",
              "longitude"
            ],
            "properties": {
              "latitude": {
                "type": "number",
                "minimum": -90,
                "maximum": 90
              },
              "longitude": {
                "type": "number",
                "minimum": -180,
                "maximum": 180
              }
            }
          },
          "location": {
            "type": "string",
            "maxLength": 2000
          },
          "results": {
            "type": "object",
            "required": [
              "count",
              "listingIDs"
            ],
            "properties": {
              "count": {
                "type": "integer",
                "minimum": 0
              },
              "listingIDs": {
                "type": "array",
                "items": {
                  "type": "string",
                  "minLength": 1,
                  "maxLength": 200
                }
              }
            }
          }
        },
        "description": "Exactly one of here and location"
      },
      "ListingSummary": {
        "type": "object",
        "required": [
          "name",
          "venue",
          "localDateTime",
          "category"
        ],
        "properties": {
          "name": {
            "type": "string",
            "maxLength": 2000
          },
          "venue": {
            "type": "string",
            "maxLength": 2000
          },
          "localDateTime": {
            "type": "string",
            "maxLength": 2000
          },
          "category": {
            "type": "string",
            "maxLength": 2000
          }
        }
      },
      "ListingDetails": {
        "type": "object",
        "required": [
          "listingID",
          "info",
          "upcomingEvents"
        ],
        "properties": {
          "listingID": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200
          },
          "info": {
            "type": "object",
            "required": [
              "name",
              "artistsOrTeams",
              "genres"
            ],
            "properties": {
              "name": {
                "type": "string",
                "maxLength": 2000
              },
              "artistsOrTeams": {
                "type": "array",
                "items": {
                  "type": "string",
                  "maxLength": 2000
                }
              },
              "venue": {
                "type": "string",
                "maxLength": 2000
              },
              "localDateTime": {
                "type": "string",
                "maxLength": 2000
              },
              "category": {
                "type": "string",
                "maxLength": 2000
              },
              "genres": {
                "type": "array",
                "items": {
                  "type": "string",
                  "maxLength": 2000
                }
              },
              "priceRange": {
                "type": "object",
                "required": [
                  "minimum",
                  "maximum"
                ],
                "properties": {
                  "minimum": {
                    "type": "number"
                  },
                  "maximum": {
                    "type": "number"
                  },
                  "currency": {
                    "type": "string",
                    "maxLength": 2000
                  }
                }
              },
              "ticketStatus": {
                "type": "string",
                "maxLength": 2000
              },
              "ticketLink": {
                "type": "string",
                "maxLength": 2000
              },
              "seatMapLink": {
                "type": "string",
                "maxLength": 2000
              }
            }
          },
          "artists": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "name",
                "albumCovers"
              ],
              "properties": {
                "name": {
                  "type": "string",
                  "maxLength": 2000
                },
                "followers": {
                  "type": "integer"
                },
                "popularity": {
                  "type": "integer"
                },
                "profileLink": {
                  "type": "string",
                  "maxLength": 2000
                },
                "albumCovers": {
                  "type": "array",
                  "items": {
                    "type": "string",
                    "maxLength": 2000
                  }
                }
              }
            }
          },
          "venue": {
            "type": "object",
            "required": [
              "name"
            ],
            "properties": {
              "name": {
                "type": "string",
                "maxLength": 2000
              }
            }
          },
          "upcomingEvents": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "name"
              ],
              "properties": {
                "name": {
                  "type": "string",
                  "maxLength": 2000
                }
              }
            }
          }
        },
        "description": "As in docs/EVENTS.md (DetailsViewed)"
      },
      "Favorites": {
        "type": "object",
        "required": [
          "items"
        ],
        "properties": {
          "items": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "listingID",
                "summary",
                "addedAt"
              ],
              "properties": {
                "listingID": {
                  "type": "string"
                },
                "summary": {
                  "$ref": "#/components/schemas/ListingSummary"
                },
                "addedAt": {
                  "type": "string",
                  "format": "date-time"
                }
              }
            }
          }
        }
      },
      "Items": {
        "type": "object",
        "required": [
          "items"
        ],
        "properties": {
          "items": {
            "type": "array",
            "items": {
              "type": "object"
            }
          }
        }
      },
      "CachedDetails": {
        "type": "object",
        "description": "The cached details document (details, fetchedAt, fetchedBy, views)"
      },
      "UserListing": {
        "type": "object",
        "required": [
          "listingID",
          "favorite",
          "details"
        ],
        "properties": {
          "listingID": {
            "type": "string"
          },
          "favorite": {
            "type": "boolean",
            "description": "Show 'Remove' when true, 'Save Event' when false"
          },
          "details": {
            "oneOf": [
              {
                "$ref": "#/components/schemas/CachedDetails"
              },
              {
                "type": "null"
              }
            ]
          }
        }
      },
      "HistoryPage": {
        "type": "object",
        "required": [
          "items",
          "nextAfter"
        ],
        "properties": {
          "items": {
            "type": "array",
            "items": {
              "allOf": [
                {
                  "$ref": "#/components/schemas/Event"
                },
                {
                  "type": "object",
                  "required": [
                    "summary"
                  ],
                  "properties": {
                    "summary": {
                      "type": "string",
                      "description": "The line 'evtool history' shows"
                    }
                  }
                }
              ]
            }
          },
          "nextAfter": {
            "type": [
              "integer",
              "null"
            ],
            "description": "Pass as after= for the next page; null on the last"
          }
        }
      },
      "Event": {
        "type": "object",
        "description": "The one JSON shape of an event (docs/EVENTS.md, docs/schemas/event.schema.json): data and metadata are the stored JSON, or strings in dataText/metadataText when they hold a line break",
        "required": [
          "position",
          "stream",
          "version",
          "id",
          "type",
          "recordedAt",
          "hash"
        ],
        "allOf": [
          {
            "anyOf": [
              {
                "required": [
                  "data"
                ]
              },
              {
                "required": [
                  "dataText"
                ]
              }
            ]
          },
          {
            "anyOf": [
              {
                "required": [
                  "metadata"
                ]
              },
              {
                "required": [
                  "metadataText"
                ]
              }
            ]
          }
        ],
        "properties": {
          "position": {
            "type": "integer"
          },
          "stream": {
            "type": "string"
          },
          "version": {
            "type": "integer"
          },
          "id": {
            "type": "string",
            "format": "uuid"
          },
          "type": {
            "type": "string"
          },
          "recordedAt": {
            "type": "string",
            "format": "date-time"
          },
          "hash": {
            "type": "string"
          },
          "data": {},
          "metadata": {
            "type": "object"
          },
          "dataText": {
            "type": "string"
          },
          "metadataText": {
            "type": "string"
          }
        }
      },
      "LogPage": {
        "type": "object",
        "required": [
          "events",
          "nextAfter"
        ],
        "properties": {
          "events": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Event"
            }
          },
          "nextAfter": {
            "type": "integer"
          }
        }
      },
      "Stats": {
        "type": "object",
        "required": [
          "events",
          "streams",
          "users",
          "head",
          "types",
          "projections"
        ],
        "properties": {
          "events": {
            "type": "integer"
          },
          "streams": {
            "type": "integer"
          },
          "users": {
            "type": "integer"
          },
          "head": {
            "type": "integer"
          },
          "types": {
            "type": "object",
            "additionalProperties": {
              "type": "integer"
            }
          },
          "projections": {
            "type": "array",
            "items": {
              "type": "object"
            }
          }
        }
      }
    }
  }
}
"""#
}
