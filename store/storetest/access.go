package storetest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// testKeysAndTokens: keys and tokens round-trip, refuse a second copy,
// list in order and go when deleted — by agent, or by prefix.
func testKeysAndTokens(t *testing.T, e Engine) {
	st, _ := field(t, e)
	at := now()
	k1 := model.Key{AgentID: "a2", Fingerprint: "SHA256:bbb", PublicKey: "ssh-ed25519 AAAA1", Comment: "ana@laptop", AddedBy: "a2", AddedAt: at}
	k2 := model.Key{AgentID: "a2", Fingerprint: "SHA256:aaa", PublicKey: "ssh-ed25519 AAAA2", AddedBy: "a2", AddedAt: at}
	t1 := model.Token{AgentID: "a1", Prefix: "arb_one", Hash: strings.Repeat("1", 64), IssuedBy: "a2", IssuedAt: at}
	t2 := model.Token{AgentID: "a1", Prefix: "arb_two", Hash: strings.Repeat("2", 64), IssuedBy: "a2", IssuedAt: at.Add(time.Microsecond)}
	write(t, st, func(tx store.Tx) error {
		for _, k := range []model.Key{k1, k2} {
			if err := tx.KeyInsert(k); err != nil {
				return err
			}
		}
		for _, k := range []model.Token{t1, t2} {
			if err := tx.TokenInsert(k); err != nil {
				return err
			}
		}
		return nil
	})
	write(t, st, func(tx store.Tx) error {
		if err := tx.KeyInsert(k1); !errors.Is(err, store.ErrExists) {
			t.Errorf("the same key again: %v, want ErrExists", err)
		}
		if err := tx.TokenInsert(t1); !errors.Is(err, store.ErrExists) {
			t.Errorf("the same token again: %v, want ErrExists", err)
		}
		return nil
	})
	read(t, st, func(tx store.Tx) error {
		got, err := tx.KeyByFingerprint("SHA256:bbb")
		if err != nil || got != k1 {
			t.Errorf("KeyByFingerprint = %+v, %v; want %+v", got, err, k1)
		}
		if _, err := tx.KeyByFingerprint("SHA256:zzz"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("an unknown key: %v, want ErrNotFound", err)
		}
		keys, err := tx.KeyList()
		if err != nil || len(keys) != 2 || keys[0] != k2 || keys[1] != k1 {
			t.Errorf("KeyList = %+v, %v; want k2, k1", keys, err)
		}
		tok, err := tx.TokenByHash(t2.Hash)
		if err != nil || tok != t2 {
			t.Errorf("TokenByHash = %+v, %v; want %+v", tok, err, t2)
		}
		if _, err := tx.TokenByHash(strings.Repeat("3", 64)); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("an unknown token: %v, want ErrNotFound", err)
		}
		toks, err := tx.TokenList()
		if err != nil || len(toks) != 2 || toks[0] != t1 || toks[1] != t2 {
			t.Errorf("TokenList = %+v, %v; want t1, t2", toks, err)
		}
		return nil
	})
	write(t, st, func(tx store.Tx) error {
		if ok, err := tx.KeyDelete("a1", "SHA256:bbb"); ok || err != nil {
			t.Errorf("deleting another's key: %v, %v; want false", ok, err)
		}
		if ok, err := tx.KeyDelete("a2", "SHA256:bbb"); !ok || err != nil {
			t.Errorf("KeyDelete: %v, %v; want true", ok, err)
		}
		if n, err := tx.TokenDelete("arb_two"); n != 1 || err != nil {
			t.Errorf("TokenDelete by prefix: %d, %v; want 1", n, err)
		}
		if n, err := tx.TokenDelete("a1"); n != 1 || err != nil {
			t.Errorf("TokenDelete by agent: %d, %v; want 1", n, err)
		}
		return nil
	})
	read(t, st, func(tx store.Tx) error {
		keys, _ := tx.KeyList()
		toks, _ := tx.TokenList()
		if len(keys) != 1 || keys[0].Fingerprint != "SHA256:aaa" || len(toks) != 0 {
			t.Errorf("after deletes: keys %+v, tokens %+v", keys, toks)
		}
		return nil
	})
}

// testUnitSearch: every word must begin a word of the unit's text,
// folded; the cursor and the limit page through the hits.
func testUnitSearch(t *testing.T, e Engine) {
	st, _ := field(t, e)
	texts := []string{"The cache lives in eu-west", "Cache eviction is LRU", "Résumé of the outage", "nothing here"}
	write(t, st, func(tx store.Tx) error {
		for i, text := range texts {
			u := unit("", int64(i+1))
			u.Content = text
			if _, err := tx.UnitInsert(u); err != nil {
				return err
			}
		}
		return tx.UnitSetStatus("mem-004", model.UnitSuperseded)
	})
	ids := func(hits []model.UnitHit) (out []string) {
		for _, h := range hits {
			out = append(out, h.Unit.ID)
		}
		return out
	}
	read(t, st, func(tx store.Tx) error {
		for _, tc := range []struct {
			words []string
			want  string
		}{
			{[]string{"cache"}, "mem-001 mem-002"},
			{[]string{"CACH"}, "mem-001 mem-002"},
			{[]string{"cache", "evict"}, "mem-002"},
			{[]string{"resume"}, "mem-003"},
			{[]string{"eu-west"}, "mem-001"},
			{[]string{"ache"}, ""},
			{[]string{"nothing"}, "mem-004"},
		} {
			hits, err := tx.UnitSearch(tc.words, 0, 10)
			if err != nil {
				return err
			}
			if got := strings.Join(ids(hits), " "); got != tc.want {
				t.Errorf("UnitSearch(%q) = %q, want %q", tc.words, got, tc.want)
			}
		}
		first, err := tx.UnitSearch([]string{"cache"}, 0, 1)
		if err != nil || len(first) != 1 || first[0].Unit.ID != "mem-001" || first[0].Unit.Content != texts[0] {
			t.Fatalf("first page: %+v, %v", first, err)
		}
		rest, err := tx.UnitSearch([]string{"cache"}, first[0].Seq, 1)
		if err != nil || strings.Join(ids(rest), " ") != "mem-002" {
			t.Errorf("second page: %v, %v", ids(rest), err)
		}
		return nil
	})
}
