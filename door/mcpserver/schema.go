package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"arbiter/model"

	"github.com/google/jsonschema-go/jsonschema"
)

// Output schemas.
//
// A tool that refuses answers with isError and, as structured content, the
// protocol's error object {code, message, operation, recoverable,
// suggested_action}. Common clients (the TypeScript SDK among them)
// validate structuredContent against the tool's output schema even when
// isError is true, so a schema of the normal result alone would make them
// throw instead of showing the refusal. Declaring no schema at all would
// avoid that but tell the agent nothing about the results. So every output
// schema is an object that is either the tool's result or the error
// object:
//
//	{"type": "object", "anyOf": [<result>, <error object>]}
//
// Both branches are the strict schemas inferred from the Go types (no
// unknown properties), so neither shape can pass for the other, and the
// top level stays "type": "object" as MCP asks of an output schema. The
// tests validate every result, success and refusal, against the schema
// the server declares.

// outputSchema is the output schema of a tool whose result is an Out.
func outputSchema[Out any]() (*jsonschema.Schema, error) {
	result, err := jsonschema.For[Out](outputOptions())
	if err != nil {
		return nil, err
	}
	refusal, err := jsonschema.For[model.Error](nil)
	if err != nil {
		return nil, err
	}
	result.Description = "the result"
	refusal.Description = "a refusal (with isError): the Akashik protocol's error object"
	return &jsonschema.Schema{Type: "object", AnyOf: []*jsonschema.Schema{result, refusal}}, nil
}

// outputOptions infers results as they marshal: an event's payload is any
// JSON value, not an array of bytes. It is said with an object that only
// describes it rather than the bare schema true, which strict validators
// (the MCP Inspector's --strict) refuse where an object is expected.
func outputOptions() *jsonschema.ForOptions {
	return &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {Description: "any JSON value"},
	}}
}

// inputSchema is the input schema of a tool taking an In: the protocol's
// closed vocabularies (unit, relation and conflict types, strategies,
// statuses) become enums, so that the agent sees them.
func inputSchema[In any]() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[In](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[model.Mode]():         enum([]model.Mode{model.ModeCommitted, model.ModeDraft}),
		reflect.TypeFor[model.UnitType]():     enum(model.UnitTypes),
		reflect.TypeFor[model.RelationType](): enum(model.RelationTypes),
		reflect.TypeFor[model.ConflictType](): enum(model.ConflictTypes),
		reflect.TypeFor[model.Strategy]():     enum(model.Strategies),
		reflect.TypeFor[statusName]():         enum(append(slices.Clone(model.ConflictStatuses), "all")),
		reflect.TypeFor[model.DetectMode]():   enum(model.DetectModes),
	}})
	if err != nil {
		return nil, err
	}
	if p := s.Properties["strategy"]; p != nil {
		p.Description = strategyHelp()
	}
	return s, nil
}

func enum[T ~string](values []T) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string"}
	for _, v := range values {
		s.Enum = append(s.Enum, string(v))
	}
	return s
}

// strategyHelp describes each strategy from the model's own words.
func strategyHelp() string {
	var b strings.Builder
	b.WriteString("how to decide:")
	for _, s := range model.Strategies {
		fmt.Fprintf(&b, " %s: %s", s, s.About())
		if s.NeedsWinner() {
			b.WriteString(" (name resolution.winner_id)")
		}
		if s == model.Synthesis {
			b.WriteString(" (give resolution.synthesis)")
		}
		b.WriteString(";")
	}
	return strings.TrimSuffix(b.String(), ";")
}
