// Command go-types prints a Go type tree as reflect sees it, for the in-memory server's ports of
// client-go's DeepHashObject (spew's %#v of a value) and of encoding/json's encoding of it: the
// table named by its argument, `pod_template` (core/v1's PodTemplateSpec) or `endpoints`
// (core/v1's EndpointSubset and discovery/v1's EndpointPort, which the endpoints and
// EndpointSlice controllers sort by their hashes).
//
// It is built inside a Kubernetes source tree (it imports k8s.io/api from the tree's vendor/):
// see hack/go-types.sh.
package main

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"

	v1 "k8s.io/api/core/v1"
	discovery "k8s.io/api/discovery/v1"
)

// node is one type: spew's name for it, its kind, and what it is made of.
type node struct {
	Name   string     `json:"name"`
	Kind   string     `json:"kind"`
	Elem   string     `json:"elem,omitempty"`
	Key    string     `json:"key,omitempty"`
	Fields [][]string `json:"fields,omitempty"`
}

// special types are printed by the server's own code: their Go insides are not JSON fields.
var special = map[string]string{
	"resource.Quantity": "quantity",
	"meta.Time":         "time",
}

// short names the packages a pod template reaches, for a smaller table.
var short = strings.NewReplacer(
	"k8s.io/api/core/v1.", "core.",
	"k8s.io/api/discovery/v1.", "discovery.",
	"k8s.io/apimachinery/pkg/apis/meta/v1.", "meta.",
	"k8s.io/apimachinery/pkg/api/resource.", "resource.",
	"k8s.io/apimachinery/pkg/util/intstr.", "intstr.",
	"k8s.io/apimachinery/pkg/types.", "types.",
)

// id names a type uniquely (two packages named v1 meet in a pod template).
func id(t reflect.Type) string {
	switch {
	case t.Name() != "" && t.PkgPath() != "":
		return short.Replace(t.PkgPath() + "." + t.Name())
	case t.Kind() == reflect.Ptr:
		return "*" + id(t.Elem())
	case t.Kind() == reflect.Slice:
		return "[]" + id(t.Elem())
	case t.Kind() == reflect.Map:
		return "map[" + id(t.Key()) + "]" + id(t.Elem())
	}
	return t.String()
}

func walk(t reflect.Type, types map[string]node) string {
	key := id(t)
	if _, done := types[key]; done {
		return key
	}
	n := node{Name: t.String(), Kind: t.Kind().String()}
	if s, ok := special[key]; ok {
		n.Kind = s
		types[key] = n
		return key
	}
	types[key] = n
	switch t.Kind() {
	case reflect.Ptr, reflect.Slice:
		n.Elem = walk(t.Elem(), types)
	case reflect.Map:
		n.Key = walk(t.Key(), types)
		n.Elem = walk(t.Elem(), types)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name := strings.Split(f.Tag.Get("json"), ",")[0]
			field := []string{f.Name, name, walk(f.Type, types)}
			// encoding/json inlines an embedded struct without a name of its own (and the
			// ",inline" of the API types is nameless too).
			if name == "" && (f.Anonymous || strings.Contains(f.Tag.Get("json"), ",inline")) {
				field = append(field, "inline")
			}
			// encoding/json leaves a zero value of an omitempty field out and writes any other
			// (the ControllerRevisions' data is the template as encoding/json writes it).
			if strings.Contains(f.Tag.Get("json"), ",omitempty") {
				field = append(field, "omitempty")
			}
			n.Fields = append(n.Fields, field)
		}
	}
	types[key] = n
	return key
}

func main() {
	types := map[string]node{}
	var root string
	switch table := os.Args[len(os.Args)-1]; table {
	case "pod_template":
		root = walk(reflect.TypeOf(v1.PodTemplateSpec{}), types)
	case "endpoints":
		root = walk(reflect.TypeOf(v1.EndpointSubset{}), types)
		walk(reflect.TypeOf(discovery.EndpointPort{}), types)
	default:
		panic("unknown table " + table + ": pod_template or endpoints")
	}
	// encoding/json writes a map's keys sorted: the table is deterministic.
	out := map[string]interface{}{"root": root, "types": types}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		panic(err)
	}
}
