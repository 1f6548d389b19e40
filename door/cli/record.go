package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	"arbiter/door/config"
	"arbiter/internal/jsonout"
	"arbiter/model"
	"arbiter/service/review"

	"github.com/spf13/cobra"
)

func (a *app) recordCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "record [FILE|-]",
		Short: "Record a memory unit from an Akashik RECORD payload (JSON)",
		Long: `Record a memory unit as --as. The payload is the JSON of an Akashik RECORD,
read from FILE or, without one or with -, from stdin:

  {"mode": "committed", "type": "finding", "content": "...",
   "intent": {"purpose": "..."},
   "confidence": {"score": 0.8, "reasoning": "...", "evidence": [], "assumptions": []},
   "relations": [{"type": "contradicts", "target_id": "mem-003", "description": "..."}],
   "conflict_type": "factual"}

Each contradicts relation opens a conflict. Unknown fields are refused.
--json prints the RECORD result.`,
		Args: cobra.MaximumNArgs(1),
		RunE: a.writingCommand(func(ctx context.Context, cfg config.Config, svc *review.Service, args []string) error {
			name := "-"
			if len(args) == 1 {
				name = args[0]
			}
			req, err := a.readRecord(ctx, name)
			if err != nil {
				return err
			}
			res, err := svc.Record(ctx, cfg.As, req)
			if err != nil {
				return err
			}
			if res.Conflicts == nil {
				res.Conflicts = []model.Conflict{}
			}
			if asJSON {
				return jsonout.Write(a.stdout, res)
			}
			fmt.Fprintf(a.stdout, "recorded %s at epoch %d\n", clean(res.UnitID), res.Epoch)
			for _, c := range res.Conflicts {
				how := ""
				if d := c.Detection; d != nil {
					how = fmt.Sprintf(", detected: %s %.2f", d.Signal, d.Score)
				}
				fmt.Fprintf(a.stdout, "opened %s (%s, version %d%s): %s vs %s: %s\n", clean(c.ID), clean(string(c.Type)),
					c.Version, how, clean(c.UnitA), clean(c.UnitB), clip(c.Description, 80))
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// recordFields is what a RECORD payload may hold.
const recordFields = "mode, type, content, intent, confidence, relations, conflict_type and session_id"

// readRecord reads one RECORD payload from the file name ("-": stdin).
// A payload that is not one JSON object of known fields is refused with
// the protocol's INVALID_REQUEST. On a terminal it first says what it
// waits for; an interrupt (ctx) ends the wait, recording nothing.
func (a *app) readRecord(ctx context.Context, name string) (model.RecordRequest, error) {
	var req model.RecordRequest
	r, label := a.stdin, "stdin"
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return req, err
		}
		defer f.Close()
		r, label = f, name
	} else if isTerminal(a.stdin) {
		fmt.Fprintln(a.stderr, "arbiter: reading a RECORD payload from standard input; end it with ctrl+d (or give a FILE; ctrl+c to stop)")
	}
	data, err := readAll(ctx, r)
	if err != nil {
		return req, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err = dec.Decode(&req)
	if err == nil {
		var extra json.RawMessage
		if dec.Decode(&extra) != io.EOF {
			err = errors.New("more than one JSON value")
		}
	}
	if err != nil {
		return req, model.Errorf(model.OpRecord, model.CodeInvalidRequest,
			"send one JSON object with "+recordFields, "payload from %s: %s", label, explainJSON(err))
	}
	return req, nil
}

// explainJSON turns a decoding error into a short sentence.
func explainJSON(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return "it is empty"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "it ends in the middle of a JSON value"
	case errors.As(err, &syntax):
		return fmt.Sprintf("%s (at byte %d)", syntax.Error(), syntax.Offset)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fmt.Sprintf("a JSON %s cannot be a RECORD payload", typ.Value)
		}
		return fmt.Sprintf("%s must be a %s, not a JSON %s", typ.Field, jsonKind(typ.Type), typ.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// jsonKind names what JSON value a Go type takes.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int64, reflect.Float64, reflect.Float32:
		return "number"
	case reflect.Slice:
		return "list"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "object"
}
