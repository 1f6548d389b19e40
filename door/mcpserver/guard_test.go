package mcpserver_test

import (
	"context"
	"errors"
	"testing"

	"arbiter/door/mcpserver"
	"arbiter/door/mcpserver/mcptest"
	"arbiter/service/review/reviewtest"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Only what the server declares is answered: no prompts, no logging, no
// completions; and the inbox, one agent's, is marked private to caches.
func TestOnlyDeclaredCapabilitiesAreAnsweredAndTheInboxIsPrivate(t *testing.T) {
	f := reviewtest.New(t, reviewtest.Policy())
	c := mcptest.Serve(t, f.Path, ana, mcptest.Options{ProtocolVersion: mcptest.Legacy})
	caps := c.Session.InitializeResult().Capabilities
	//lint:ignore SA1019 a deprecated capability must still not be declared
	if caps.Prompts != nil || caps.Logging != nil || caps.Completions != nil || caps.Tools == nil || caps.Resources == nil {
		t.Fatalf("capabilities %+v", caps)
	}
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"prompts/list": func() error { _, err := c.Session.ListPrompts(ctx, nil); return err },
		"prompts/get":  func() error { _, err := c.Session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "x"}); return err },
		//lint:ignore SA1019 a deprecated method must still be refused
		"logging/setLevel": func() error { return c.Session.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}) },
		"completion/complete": func() error {
			_, err := c.Session.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "x"}, Argument: mcp.CompleteParamsArgument{Name: "a", Value: "b"}})
			return err
		},
	} {
		var we *jsonrpc.Error
		if err := call(); !errors.As(err, &we) || we.Code != jsonrpc.CodeMethodNotFound {
			t.Errorf("%s: %v, want method not found", name, err)
		}
	}
	res, err := c.Session.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.InboxURI})
	if err != nil {
		t.Fatal(err)
	}
	if res.CacheScope != "private" {
		t.Errorf("the inbox's cacheScope is %q, want private", res.CacheScope)
	}
}
