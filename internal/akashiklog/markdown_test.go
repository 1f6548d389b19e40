package akashiklog

import (
	"encoding/json"
	"testing"
)

func TestEntryMarkdownRendersTitleLeadTableAndNestedBlocks(t *testing.T) {
	raw := json.RawMessage(`{
		"zeta": "last",
		"title": "Pick a\nstorage engine",
		"summary": "SQLite is *enough* for one writer.",
		"body": "not the lead: summary comes first",
		"topic": "db",
		"note": "a | b\nc",
		"port": 5432,
		"ok": true,
		"gone": null,
		"empty": "",
		"opts": {"wal": true, "cache": [1, 2]},
		"tags": ["a"]
	}`)
	want := "### Pick a storage engine\n" +
		"\n" +
		"SQLite is *enough* for one writer.\n" +
		"\n" +
		"| key | value |\n" +
		"| --- | --- |\n" +
		"| topic | db |\n" +
		"| body | not the lead: summary comes first |\n" +
		"| empty | \"\" |\n" +
		"| gone | null |\n" +
		"| note | a \\| b<br>c |\n" +
		"| ok | true |\n" +
		"| port | 5432 |\n" +
		"| zeta | last |\n" +
		"\n" +
		"**opts**\n" +
		"\n" +
		"```json\n" +
		"{\n" +
		"  \"wal\": true,\n" +
		"  \"cache\": [\n" +
		"    1,\n" +
		"    2\n" +
		"  ]\n" +
		"}\n" +
		"```\n" +
		"\n" +
		"**tags**\n" +
		"\n" +
		"```json\n" +
		"[\n" +
		"  \"a\"\n" +
		"]\n" +
		"```\n"
	if got := EntryMarkdown(raw); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestEntryMarkdownLengthensFenceAroundBackticks(t *testing.T) {
	got := EntryMarkdown(json.RawMessage(`{"code":{"snippet":"` + "```go" + `"}}`))
	want := "**code**\n\n````json\n{\n  \"snippet\": \"```go\"\n}\n````\n"
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestEntryMarkdownEscapesKeys(t *testing.T) {
	got := EntryMarkdown(json.RawMessage(`{"a_b*":1}`))
	want := "| key | value |\n| --- | --- |\n| a\\_b\\* | 1 |\n"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestEntryMarkdownShowsNonObjectsAsJSON(t *testing.T) {
	if got, want := EntryMarkdown(json.RawMessage(`[1]`)), "```json\n[\n  1\n]\n```\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got, want := EntryMarkdown(json.RawMessage(`{}`)), "_(empty entry)_\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
