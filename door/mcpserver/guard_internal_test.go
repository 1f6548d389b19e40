package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A request the client cancelled gets no response; the others do, in
// order.
func TestACancelledRequestGetsNoResponse(t *testing.T) {
	ctx := context.Background()
	serverT, clientT := mcp.NewInMemoryTransports()
	server, err := quietCancel{serverT}.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	client, err := clientT.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	defer client.Close()
	id := func(n int64) jsonrpc.ID { i, _ := jsonrpc.MakeID(float64(n)); return i }
	send := func(msg jsonrpc.Message) {
		if err := client.Write(ctx, msg); err != nil {
			t.Fatal(err)
		}
		if _, err := server.Read(ctx); err != nil {
			t.Fatal(err)
		}
	}
	send(&jsonrpc.Request{ID: id(1), Method: "tools/call", Params: json.RawMessage(`{}`)})
	send(&jsonrpc.Request{ID: id(2), Method: "tools/call", Params: json.RawMessage(`{}`)})
	send(&jsonrpc.Request{Method: "notifications/cancelled", Params: json.RawMessage(`{"requestId":1,"reason":"changed my mind"}`)})
	for _, n := range []int64{1, 2} {
		if err := server.Write(ctx, &jsonrpc.Response{ID: id(n), Result: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	msg, err := client.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if resp, ok := msg.(*jsonrpc.Response); !ok || resp.ID != id(2) {
		t.Fatalf("the client read %#v first, want the response to request 2", msg)
	}
}
