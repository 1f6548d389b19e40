package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"arbiter/model"
	"arbiter/store"
)

func testFieldLinks(t *testing.T, e Engine) {
	st, _ := field(t, e)
	read(t, st, func(tx store.Tx) error {
		if got, err := tx.FieldLinks(); err != nil || len(got) != 0 {
			t.Fatalf("a new field's links %+v (%v), want none", got, err)
		}
		return nil
	})
	self := model.FieldLink{UID: "u-self", Kind: model.LinkSelf, Name: "team.db"}
	fork := model.FieldLink{UID: "u-fork", Kind: model.LinkFork, Name: "fork-b.db", BaseEpoch: 40}
	write(t, st, func(tx store.Tx) error {
		for _, l := range []model.FieldLink{fork, self} {
			if err := tx.FieldLinkPut(l); err != nil {
				return err
			}
		}
		fork.JoinedEpoch = 77
		return tx.FieldLinkPut(fork)
	})
	read(t, st, func(tx store.Tx) error {
		got, err := tx.FieldLinks()
		if want := []model.FieldLink{fork, self}; err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("links %+v (%v), want %+v", got, err, want)
		}
		return nil
	})
	// A field has one identity and one origin.
	err := st.Write(context.Background(), func(tx store.Tx) error {
		return tx.FieldLinkPut(model.FieldLink{UID: "u-other", Kind: model.LinkSelf, Name: "x"})
	})
	if err == nil {
		t.Fatal("a second identity was stored")
	}
}

func testProvenance(t *testing.T, e Engine) {
	st, _ := field(t, e)
	p := model.Provenance{Kind: model.ProvenanceUnit, ID: "mem-203", ForkUID: "u-fork", ForkName: "fork-b.db",
		ForkID: "mem-157", Epoch: 90}
	c := model.Provenance{Kind: model.ProvenanceConflict, ID: "conflict-009", ForkUID: "u-fork", ForkName: "fork-b.db",
		ForkID: "mem-157", Epoch: 90} // the same fork id as a unit's: kinds are apart
	write(t, st, func(tx store.Tx) error {
		if err := tx.ProvenancePut(p); err != nil {
			return err
		}
		return tx.ProvenancePut(c)
	})
	read(t, st, func(tx store.Tx) error {
		if got, err := tx.Provenance(model.ProvenanceUnit, "mem-203"); err != nil || got != p {
			t.Fatalf("provenance of mem-203 %+v (%v), want %+v", got, err, p)
		}
		if got, err := tx.ProvenanceByFork("u-fork", model.ProvenanceConflict, "mem-157"); err != nil || got != c {
			t.Fatalf("provenance of the fork's mem-157 as a conflict %+v (%v), want %+v", got, err, c)
		}
		if _, err := tx.Provenance(model.ProvenanceUnit, "mem-157"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("provenance of a unit no join brought: %v, want ErrNotFound", err)
		}
		if _, err := tx.ProvenanceByFork("u-other", model.ProvenanceUnit, "mem-157"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("provenance from another fork: %v, want ErrNotFound", err)
		}
		return nil
	})
	// One fork's unit is brought once.
	dup := p
	dup.ID = "mem-204"
	if err := st.Write(context.Background(), func(tx store.Tx) error { return tx.ProvenancePut(dup) }); err == nil {
		t.Fatal("the fork's mem-157 was brought twice")
	}
}

func testForksDeleteAndEach(t *testing.T, e Engine) {
	st, _ := field(t, e)
	a := model.Provenance{Kind: model.ProvenanceUnit, ID: "mem-2", ForkUID: "f", ForkName: "f.db", ForkID: "mem-9", Epoch: 3}
	b := model.Provenance{Kind: model.ProvenanceConflict, ID: "conflict-1", ForkUID: "f", ForkName: "f.db", ForkID: "conflict-4", Epoch: 3}
	c := model.Provenance{Kind: model.ProvenanceUnit, ID: "mem-1", ForkUID: "f", ForkName: "f.db", ForkID: "mem-8", Epoch: 3}
	write(t, st, func(tx store.Tx) error {
		for _, p := range []model.Provenance{a, b, c} {
			if err := tx.ProvenancePut(p); err != nil {
				return err
			}
		}
		for _, uid := range []string{"x", "y"} {
			if err := tx.FieldLinkPut(model.FieldLink{UID: uid, Kind: model.LinkFork, Name: uid}); err != nil {
				return err
			}
		}
		if err := tx.FieldLinkDelete("x"); err != nil {
			return err
		}
		return tx.FieldLinkDelete("none") // nothing to delete is no error
	})
	read(t, st, func(tx store.Tx) error {
		var got []model.Provenance
		if err := tx.ProvenanceEach(func(p model.Provenance) error { got = append(got, p); return nil }); err != nil {
			return err
		}
		if want := []model.Provenance{b, c, a}; !reflect.DeepEqual(got, want) {
			t.Fatalf("each provenance %+v, want %+v (by kind, then id)", got, want)
		}
		links, err := tx.FieldLinks()
		if err != nil || len(links) != 1 || links[0].UID != "y" {
			t.Fatalf("links after deleting x: %+v (%v)", links, err)
		}
		return nil
	})
}

func testUnitEachSince(t *testing.T, e Engine) {
	st, _ := field(t, e)
	score := 0.5
	write(t, st, func(tx store.Tx) error {
		for i, epoch := range []int64{5, 9, 7, 12} {
			u := model.Unit{Mode: model.ModeCommitted, Type: model.TypeFinding, Content: fmt.Sprintf("unit %d", i),
				Intent: model.Intent{Purpose: "p"}, Confidence: model.Confidence{Score: &score, Reasoning: "r"},
				Source: model.Source{AgentID: "a1", AgentRole: "r", Timestamp: now()}, Status: model.UnitActive, Epoch: epoch}
			if i == 3 {
				u.Relations = []model.Relation{{Type: model.RelSupersedes, TargetID: "mem-002"}}
			}
			if _, err := tx.UnitInsert(u); err != nil {
				return err
			}
		}
		return nil
	})
	read(t, st, func(tx store.Tx) error {
		var got []string
		err := tx.UnitEachSince(7, func(seq int64, u model.Unit) error {
			got = append(got, fmt.Sprintf("%d %s %d %d", seq, u.ID, u.Epoch, len(u.Relations)))
			return nil
		})
		if want := []string{"2 mem-002 9 0", "4 mem-004 12 1"}; err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("units after epoch 7: %q (%v), want %q", got, err, want)
		}
		return nil
	})
}
