package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"arbiter/model"
	"arbiter/store"
)

// The word index answers detection's questions: for each word, the
// newest units before a place that hold it, how many do, and nothing for
// a word no unit holds; units of one purpose, newest first; units by
// sequence number and in batches after a place.
func testDetectCandidates(t *testing.T, e Engine) {
	st, _ := field(t, e)
	// Units 1..70 hold "autoscaling"; every tenth holds "frankfurt"; the
	// odd ones have purpose "capacity", the even ones "capacity plan".
	write(t, st, func(tx store.Tx) error {
		for i := 1; i <= 70; i++ {
			u := unit("", int64(i))
			u.Content = fmt.Sprintf("Autoscaling of the pool, note %d.", i)
			if i%10 == 0 {
				u.Content += " Served from Frankfurt."
			}
			u.Intent.Purpose = "capacity"
			if i%2 == 0 {
				u.Intent.Purpose = "capacity plan"
			}
			if _, err := tx.UnitInsert(u); err != nil {
				return err
			}
		}
		return nil
	})
	read(t, st, func(tx store.Tx) error {
		terms := []store.Term{{Prefix: "autoscal", Whole: "autoscaling"}, {Prefix: "frankfurt", Whole: "frankfurt"},
			{Prefix: "zanzibar", Whole: "zanzibar"}}
		hits, df, err := tx.UnitCandidates(terms, 65, 4)
		if err != nil {
			return err
		}
		if want := [][]int64{{64, 63, 62, 61}, {60, 50, 40, 30}, nil}; !sameHits(hits, want) {
			t.Errorf("hits before 65, 4 a word: %v, want %v", hits, want)
		}
		if df[0] < 4 || df[2] != 0 {
			t.Errorf("held by: %v; want at least 4 for autoscaling, 0 for zanzibar", df)
		}
		hits, df, err = tx.UnitCandidates(terms[1:2], 100, 10)
		if err != nil {
			return err
		}
		if want := [][]int64{{70, 60, 50, 40, 30, 20, 10}}; !sameHits(hits, want) || df[0] != 7 {
			t.Errorf("frankfurt, 10 asked: %v held by %v, want %v held by 7 (counted: fewer than asked)", hits, df, want)
		}
		same, err := tx.UnitsByPurpose("capacity", 10, 3)
		if err != nil {
			return err
		}
		if want := []int64{9, 7, 5}; !reflect.DeepEqual(same, want) {
			t.Errorf("units of purpose capacity before 10: %v, want %v (not those of capacity plan)", same, want)
		}
		got, err := tx.UnitsBySeq([]int64{12, 999, 3, 12})
		if err != nil {
			return err
		}
		if len(got) != 2 || got[0].Seq != 12 || got[0].Unit.ID != "mem-012" || got[1].Unit.ID != "mem-003" ||
			got[0].Unit.Content != "Autoscaling of the pool, note 12." || got[1].Unit.Intent.Purpose != "capacity" {
			t.Errorf("UnitsBySeq(12, 999, 3, 12) = %+v, want mem-012 then mem-003, whole", got)
		}
		after, err := tx.UnitsAfter(60, 0, 3)
		if err != nil {
			return err
		}
		if len(after) != 3 || after[0].Seq != 61 || after[2].Seq != 63 {
			t.Errorf("UnitsAfter(60, 0, 3) = %v, want 61, 62, 63", after)
		}
		after, err = tx.UnitsAfter(0, 68, 10)
		if err != nil {
			return err
		}
		if len(after) != 2 || after[0].Unit.Epoch != 69 || after[1].Unit.Epoch != 70 {
			t.Errorf("UnitsAfter(0, since epoch 68) = %v, want the units of epochs 69 and 70", after)
		}
		return nil
	})
}

func sameHits(got, want [][]int64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if len(got[i]) != len(want[i]) || (len(got[i]) > 0 && !reflect.DeepEqual(got[i], want[i])) {
			return false
		}
	}
	return true
}

// A pair said not to contradict is kept in either order, replaced when
// said again, forgotten when taken back; the field's scan place is kept
// whole.
func testDetectDismissedAndScan(t *testing.T, e Engine) {
	st, _ := field(t, e)
	at := now()
	write(t, st, func(tx store.Tx) error {
		if err := tx.DetectDismiss(model.Dismissed{UnitA: "mem-009", UnitB: "mem-010", By: "a1", At: at, ConflictID: "conflict-001"}); err != nil {
			return err
		}
		if err := tx.DetectDismiss(model.Dismissed{UnitA: "mem-002", UnitB: "mem-001", By: "a1", At: at}); err != nil {
			return err
		}
		// Said again, by another: replaced, not doubled.
		return tx.DetectDismiss(model.Dismissed{UnitA: "mem-001", UnitB: "mem-002", By: "a2", At: at.Add(time.Second), ConflictID: "conflict-002"})
	})
	read(t, st, func(tx store.Tx) error {
		for _, p := range [][2]string{{"mem-001", "mem-002"}, {"mem-002", "mem-001"}, {"mem-010", "mem-009"}} {
			if ok, err := tx.DetectDismissed(p[0], p[1]); !ok || err != nil {
				t.Errorf("DetectDismissed(%s, %s) = %v (%v), want true", p[0], p[1], ok, err)
			}
		}
		if ok, err := tx.DetectDismissed("mem-001", "mem-009"); ok || err != nil {
			t.Errorf("a pair nobody dismissed: %v (%v)", ok, err)
		}
		var all []model.Dismissed
		err := tx.DetectDismissedEach(func(d model.Dismissed) error { all = append(all, d); return nil })
		want := []model.Dismissed{{UnitA: "mem-001", UnitB: "mem-002", By: "a2", At: at.Add(time.Second), ConflictID: "conflict-002"},
			{UnitA: "mem-009", UnitB: "mem-010", By: "a1", At: at, ConflictID: "conflict-001"}}
		if !reflect.DeepEqual(all, want) || err != nil {
			t.Errorf("dismissed pairs\n%+v (%v)\nwant\n%+v", all, err, want)
		}
		if _, err := tx.DetectScan(); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the scan of a field never scanned: %v, want ErrNotFound", err)
		}
		return nil
	})
	scan := model.ScanState{SinceEpoch: 7, Cursor: 500, Sensitivity: model.SensitivityHigh, Done: 480, Found: 3,
		StartedAt: at, UpdatedAt: at.Add(time.Minute)}
	write(t, st, func(tx store.Tx) error {
		if err := tx.DetectUndismiss("mem-002", "mem-001"); err != nil {
			return err
		}
		return tx.DetectScanSave(scan)
	})
	read(t, st, func(tx store.Tx) error {
		if ok, err := tx.DetectDismissed("mem-001", "mem-002"); ok || err != nil {
			t.Errorf("a pair taken back is still dismissed: %v (%v)", ok, err)
		}
		got, err := tx.DetectScan()
		if !reflect.DeepEqual(got, scan) || err != nil {
			t.Errorf("scan\n%+v (%v)\nwant\n%+v", got, err, scan)
		}
		return nil
	})
	done := at.Add(time.Hour)
	scan.Cursor, scan.Done, scan.FinishedAt = 900, 880, &done
	write(t, st, func(tx store.Tx) error { return tx.DetectScanSave(scan) })
	read(t, st, func(tx store.Tx) error {
		got, err := tx.DetectScan()
		if !reflect.DeepEqual(got, scan) || err != nil || !got.Finished() {
			t.Errorf("finished scan\n%+v (%v)\nwant\n%+v", got, err, scan)
		}
		return nil
	})
}
