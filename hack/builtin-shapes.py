#!/usr/bin/env python3
"""Writes fake-apiserver/src/semantics/builtin_shapes.json from kube-apiserver's published
OpenAPI v3 documents (api/openapi-spec/v3 of a Kubernetes source tree): the structure of every
built-in type, reduced to what field management reads, as kube-openapi's schemaconv reads it:
properties, items, additionalProperties, list types (a list's x-kubernetes-list-type, else its
patch strategy and merge key, else atomic), map types, and the defaults of list-map key fields.

usage: hack/builtin-shapes.py /tmp/k8s-src/api/openapi-spec/v3 > fake-apiserver/src/semantics/builtin_shapes.json
"""

import json
import os
import sys

PREFIX = "#/components/schemas/"


def ref_of(node):
    """The definition a node names, directly or through a single `allOf`."""
    if "$ref" in node:
        return node["$ref"][len(PREFIX):]
    all_of = node.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and "$ref" in all_of[0]:
        return all_of[0]["$ref"][len(PREFIX):]
    return None


def list_semantics(node, out):
    """schemaconv's getListElementRelationship, written as CRD-style list annotations."""
    list_type = node.get("x-kubernetes-list-type")
    if list_type in ("atomic", "set"):
        out["x-kubernetes-list-type"] = list_type
    elif list_type == "map":
        out["x-kubernetes-list-type"] = "map"
        out["x-kubernetes-list-map-keys"] = node.get("x-kubernetes-list-map-keys", [])
    elif node.get("x-kubernetes-patch-strategy") in ("merge", "merge,retainKeys"):
        key = node.get("x-kubernetes-patch-merge-key")
        if key:
            out["x-kubernetes-list-type"] = "map"
            out["x-kubernetes-list-map-keys"] = [key]
        else:
            out["x-kubernetes-list-type"] = "set"
    # Anything else is atomic: left unannotated, as a CRD schema's plain list is.


def reduce(node, schemas):
    out = {}
    ref = ref_of(node)
    if ref:
        out["$ref"] = ref
        return out
    if node.get("x-kubernetes-map-type") in ("atomic", "granular"):
        out["x-kubernetes-map-type"] = node["x-kubernetes-map-type"]
    if "default" in node and not isinstance(node["default"], (dict, list)):
        out["default"] = node["default"]
    if isinstance(node.get("properties"), dict):
        out["properties"] = {k: reduce(v, schemas) for k, v in sorted(node["properties"].items())}
    if isinstance(node.get("items"), dict):
        out["items"] = reduce(node["items"], schemas)
        list_semantics(node, out)
    if isinstance(node.get("additionalProperties"), dict):
        out["additionalProperties"] = reduce(node["additionalProperties"], schemas)
    return out


def main(spec_dir):
    schemas, kinds = {}, {}
    for name in sorted(os.listdir(spec_dir)):
        if not name.endswith("_openapi.json"):
            continue
        with open(os.path.join(spec_dir, name)) as f:
            document = json.load(f)
        for definition, node in document.get("components", {}).get("schemas", {}).items():
            schemas.setdefault(definition, node)
    reduced = {name: reduce(node, schemas) for name, node in sorted(schemas.items())}
    for name, node in sorted(schemas.items()):
        for gvk in node.get("x-kubernetes-group-version-kind", []):
            key = f"{gvk['group']}/{gvk['version']}/{gvk['kind']}"
            # A kind named in several packages (meta.v1 DeleteOptions…) keeps its own group's.
            kinds.setdefault(key, name)
    json.dump({"kinds": kinds, "definitions": reduced}, sys.stdout, separators=(",", ":"), sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
