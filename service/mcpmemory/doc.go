// Package mcpmemory reviews the conflicts of an mcp-memory-service
// database (its sqlite_vec backend) in place, through the same
// review.Desk the review screen and the reviewing commands use for an
// arbiter field.
//
// It is an adapter with its own SQL against that program's schema: the
// one place outside the engines under store/ that holds SQL, because the
// file is not arbiter's. It reads and writes only the tables memories and
// memory_graph, never memory_embeddings (a sqlite-vec virtual table a
// pure-Go SQLite cannot load), and it writes exactly what the server's
// own resolve_conflict writes, plus arbiter's record of who decided and
// why in the places the server's code ignores: the pair's edge metadata,
// or, for a dismissed pair, the memories' metadata JSON.
//
// Ids: a memory is the first 12 characters of its content_hash; a
// conflict is the first 6 of each hash of the pair, lower hash first
// ("3f9a1c-8d7e6f"), longer where two pairs would share one. Any unique
// prefix of at least 4 characters, or the whole hash, is accepted back.
// docs/mcp-memory-service.md has the whole mapping.
package mcpmemory
