"""A JSON Schema of every message of protocol v1, made from the message definitions.

MessagePack maps are described as JSON objects (a MessagePack integer is a
JSON integer, and so on). What a struct cannot say by itself is added here,
from the same rules the decoder keeps: from a client, nil in an optional field
is its default, and a move's ``round`` and ``turn`` come together.
"""

from __future__ import annotations

from typing import Any

import msgspec

from . import VERSION
from .messages import CLIENT_TYPES, TOGETHER, ClientMessage, ServerMessage, optional_fields

NULL = {"type": "null"}


def schema() -> dict[str, Any]:
    """The schema: ``$defs.ClientMessage`` and ``$defs.ServerMessage``, each a union tagged
    by ``type``, and every struct either uses."""
    (client, server), defs = msgspec.json.schema_components(
        (ClientMessage, ServerMessage), ref_template="#/$defs/{name}"
    )
    for cls in CLIENT_TYPES.values():
        _client_rules(defs[cls.__name__], optional_fields(cls))
    defs["ClientMessage"] = {"title": "A message from a client", **client}
    defs["ServerMessage"] = {"title": "A message from the server", **server}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"Least Score protocol {VERSION}",
        "description": (
            "Each frame is a 4-byte big-endian length, then one MessagePack map: "
            "one of these messages. Unknown fields are ignored by both sides."
        ),
        "oneOf": [{"$ref": "#/$defs/ClientMessage"}, {"$ref": "#/$defs/ServerMessage"}],
        "$defs": defs,
    }


def _client_rules(struct: dict[str, Any], optional: frozenset[str]) -> None:
    properties: dict[str, Any] = struct["properties"]
    for name in optional:
        prop = properties[name]
        if NULL not in prop.get("anyOf", ()) and prop.get("type") != "null":
            default = {"default": prop.pop("default")} if "default" in prop else {}
            properties[name] = {"anyOf": [prop, NULL], **default}
    if all(name in properties for name in TOGETHER):
        struct["dependentRequired"] = {
            name: [other for other in TOGETHER if other != name] for name in TOGETHER
        }


def schema_json(indent: int = 2) -> str:
    return msgspec.json.format(msgspec.json.encode(schema()), indent=indent).decode()
