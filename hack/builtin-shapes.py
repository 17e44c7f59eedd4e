#!/usr/bin/env python3
r"""Writes fake-apiserver/src/semantics/builtin_shapes.json from kube-apiserver's published
OpenAPI v3 documents (api/openapi-spec/v3 of a Kubernetes source tree): the structure of every
built-in type, reduced to what field management and strategic merge patch read, as kube-openapi's
schemaconv reads it: properties, items, additionalProperties, list types (a list's
x-kubernetes-list-type, else its patch strategy and merge key, else atomic), map types, the
defaults of list-map key fields, and each field's patch strategy and merge key as they stand, and each node's type and format as
CEL's type checker reads them.
From the Go types of the same tree (staging/src/k8s.io/...), each definition's `x-omitempty`:
the fields whose empty value Go's JSON encoder leaves out (`omitempty` on a value that is no
pointer or struct: a string, number or bool at its zero value, an empty slice or map), which a
built-in object therefore never stores.

With `--newer MINOR=TREE` (repeatable), `newer[MINOR]` says what the Go structs of that later
tree declare beyond the base tree's, so that the server can decode a body as that minor's
kube-apiserver does without the base's field management changing: `properties` holds, per base
definition, the fields the base lacks or whose value is another type there (their nodes as
above), `kinds` the group/version/kinds the base does not serve at all (flowcontrol's v1),
and `definitions` the definitions the base lacks that those fields and kinds reach (a walk goes
inside `Volume.image` through them). Every section is measured against the base tree.

usage: hack/builtin-shapes.py /tmp/k8s-src --newer 31=/tmp/k8s-src-v1.31.2 \
           > fake-apiserver/src/semantics/builtin_shapes.json
"""

import argparse
import glob
import json
import os
import re
import sys

# The Go package of each OpenAPI definition prefix.
GO_PACKAGES = {
    "io.k8s.api.": "staging/src/k8s.io/api/",
    "io.k8s.apimachinery.pkg.apis.meta.v1": "staging/src/k8s.io/apimachinery/pkg/apis/meta/v1",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1": "staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1",
    "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1": "staging/src/k8s.io/kube-aggregator/pkg/apis/apiregistration/v1",
}
SCALARS = {"string", "bool", "byte", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64"}
STRUCT_RE = re.compile(r"^type (\w+) struct \{$")
NAMED_RE = re.compile(r"^type (\w+) (\S+)$")
FIELD_RE = re.compile(r'^\s*(\w+)?\s*([^\s`]+)\s+`json:"([^"]*)"')


def go_package(definition):
    """The directory of a definition's Go package and the type's name, or None."""
    package, _, name = definition.rpartition(".")
    for prefix, directory in GO_PACKAGES.items():
        if package == prefix.rstrip("."):
            return directory, name
        if prefix.endswith(".") and package.startswith(prefix):
            group, version = package[len(prefix):].split(".")
            return f"{directory}{group}/{version}", name
    return None


def read_package(root, directory, cache):
    """Every struct of a Go package (its fields: Go name, type, json tag) and its named types."""
    if directory in cache:
        return cache[directory]
    structs, named = {}, {}
    for path in sorted(glob.glob(os.path.join(root, directory, "*.go"))):
        if path.endswith("_test.go") or "generated" in os.path.basename(path):
            continue
        current = None
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if current is None:
                    m = STRUCT_RE.match(line)
                    if m:
                        current = structs.setdefault(m.group(1), [])
                        continue
                    m = NAMED_RE.match(line)
                    if m:
                        named[m.group(1)] = m.group(2)
                elif line == "}":
                    current = None
                else:
                    m = FIELD_RE.match(line)
                    if m:
                        go_name, go_type, tag = m.groups()
                        current.append((go_name, go_type, tag))
    cache[directory] = (structs, named)
    return cache[directory]


# Named types of other packages the API types use (`types.UID`).
FOREIGN_NAMED = {"UID": "string"}


def empty_omitted(go_type, named):
    """Whether `omitempty` drops a value of this Go type when empty: not for pointers, structs.
    A type of another package (`v1.ResourceList`) is looked up by its name in `named`, which
    holds the named types of every package read."""
    seen = set()
    while go_type not in seen:
        seen.add(go_type)
        if go_type.startswith("*"):
            return False
        if go_type.startswith("[]") or go_type.startswith("map["):
            return True
        if go_type in SCALARS:
            return True
        base = go_type.split(".")[-1]
        if base in named:
            go_type = named[base]
        elif base in FOREIGN_NAMED:
            go_type = FOREIGN_NAMED[base]
        else:
            return False
    return False


def omitted_fields(root, definition, cache):
    """The JSON names of a definition's fields whose empty value Go's encoder omits."""
    located = go_package(definition)
    if not located:
        return []
    directory, name = located
    structs, _ = read_package(root, directory, cache)
    # Named types by name across the packages the API types refer to.
    named = {}
    for package in ("staging/src/k8s.io/api/core/v1", "staging/src/k8s.io/apimachinery/pkg/apis/meta/v1", directory):
        named.update(read_package(root, package, cache)[1])
    fields, pending = [], [name]
    while pending:
        for go_name, go_type, tag in structs.get(pending.pop(), []):
            json_name, _, options = tag.partition(",")
            if "inline" in options.split(","):
                pending.append(go_type.split(".")[-1])
                continue
            if json_name == "-" or "omitempty" not in options.split(","):
                continue
            if empty_omitted(go_type, named):
                fields.append(json_name or go_name)
    return sorted(set(fields))

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


# The OpenAPI formats CEL reads off a built-in type (timestamps, bytes, durations).
CEL_FORMATS = {"date-time", "date", "byte", "duration"}


def cel_type(node, out):
    """What CEL's `SchemaDeclType` reads of a node's type, as the generated Go definitions give
    it: the JSON type and format; an IntOrString is either, a Quantity a string."""
    if node.get("format") == "int-or-string":
        out["x-kubernetes-int-or-string"] = True
    elif node.get("type") in ("string", "integer", "number", "boolean", "object", "array"):
        out["type"] = node["type"]
    elif any(option.get("type") == "string" for option in node.get("oneOf", [])):
        out["type"] = "string"
    if node.get("format") in CEL_FORMATS:
        out["format"] = node["format"]


def reduce(node, schemas):
    out = {}
    cel_type(node, out)
    # The field's patch strategy and merge key, which strategic merge patch reads from the
    # Go struct tags these extensions are generated from (a `$ref` field keeps them too).
    for extension in ("x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key"):
        if extension in node:
            out[extension] = node[extension]
    ref = ref_of(node)
    if ref:
        out["$ref"] = ref
        return out
    if node.get("x-kubernetes-map-type") in ("atomic", "granular"):
        out["x-kubernetes-map-type"] = node["x-kubernetes-map-type"]
    elif node.get("type") == "object" and not node.get("properties") and not node.get("additionalProperties"):
        # An object the schema says nothing of (a RawExtension: a ControllerRevision's data)
        # is owned whole: its writer owns `f:data`, not the keys inside.
        out["x-kubernetes-map-type"] = "atomic"
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


def read_tree(source):
    """`kinds` and `definitions` of the Kubernetes source tree at `source`."""
    spec_dir = os.path.join(source, "api/openapi-spec/v3")
    schemas, kinds = {}, {}
    for name in sorted(os.listdir(spec_dir)):
        if not name.endswith("_openapi.json"):
            continue
        with open(os.path.join(spec_dir, name)) as f:
            document = json.load(f)
        for definition, node in document.get("components", {}).get("schemas", {}).items():
            schemas.setdefault(definition, node)
    reduced = {name: reduce(node, schemas) for name, node in sorted(schemas.items())}
    cache = {}
    for name, node in reduced.items():
        omitted = [f for f in omitted_fields(source, name, cache) if f in node.get("properties", {})]
        if omitted:
            node["x-omitempty"] = omitted
    for name, node in sorted(schemas.items()):
        for gvk in node.get("x-kubernetes-group-version-kind", []):
            key = f"{gvk['group']}/{gvk['version']}/{gvk['kind']}"
            # A kind named in several packages (meta.v1 DeleteOptions…) keeps its own group's.
            kinds.setdefault(key, name)
    return {"kinds": kinds, "definitions": reduced}


def decoded_structure(node):
    """What Go's decoder reads of a node: the type it names and the keys it takes, without the
    list and patch metadata that differ between minors but decode the same."""
    out = {}
    if "$ref" in node:
        out["$ref"] = node["$ref"]
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            out[key] = decoded_structure(node[key])
    if isinstance(node.get("properties"), dict):
        out["properties"] = {k: decoded_structure(v) for k, v in node["properties"].items()}
    return out


def references(node):
    """The definitions a node names, through its items, map values and properties."""
    if "$ref" in node:
        yield node["$ref"]
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            yield from references(node[key])
    for child in node.get("properties", {}).values():
        yield from references(child)


def newer_section(base, newer):
    """What the definitions of `newer` declare beyond those of `base` (both from read_tree)."""
    base_definitions, newer_definitions = base["definitions"], newer["definitions"]
    # The kinds the base does not serve at all (flowcontrol.apiserver.k8s.io/v1 is 1.29's).
    kinds = {gvk: name for gvk, name in newer["kinds"].items() if gvk not in base["kinds"]}
    properties = {}
    for name, node in newer_definitions.items():
        if name not in base_definitions:
            continue
        declared = base_definitions[name].get("properties", {})
        for key, child in node.get("properties", {}).items():
            if key not in declared or decoded_structure(declared[key]) != decoded_structure(child):
                properties.setdefault(name, {})[key] = child
    # The new definitions those fields reach, and the new ones those reach in turn; a base
    # definition they reach gets its own additions above.
    definitions = {}
    pending = [ref for fields in properties.values() for child in fields.values() for ref in references(child)]
    pending.extend(kinds.values())
    while pending:
        name = pending.pop()
        if name in base_definitions or name in definitions or name not in newer_definitions:
            continue
        definitions[name] = newer_definitions[name]
        pending.extend(references(definitions[name]))
    return {"properties": properties, "definitions": definitions, "kinds": kinds}


def main(arguments):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", help="the base Kubernetes source tree (v1.28.7)")
    parser.add_argument("--newer", action="append", default=[], metavar="MINOR=TREE",
                        help="a later minor's source tree, measured against the base")
    options = parser.parse_args(arguments)
    shapes = read_tree(options.source)
    newer = {}
    for spec in options.newer:
        minor, _, tree = spec.partition("=")
        if not minor.isdigit() or not tree:
            parser.error(f"--newer wants MINOR=TREE (31=/tmp/k8s-src-v1.31.2), not {spec!r}")
        newer[minor] = newer_section(shapes, read_tree(tree))
    if newer:
        shapes["newer"] = newer
    json.dump(shapes, sys.stdout, separators=(",", ":"), sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
