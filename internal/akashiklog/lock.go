package akashiklog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
)

// ErrLockTimeout is wrapped by the error Append returns when another writer
// holds the log's lock for longer than the lock timeout.
var ErrLockTimeout = errors.New("gave up waiting for the log lock")

// lock takes <path>.lock the SDK's way: create it exclusively, retry every
// a.retry(), break it when its mtime is older than a.stale(), give up after
// a.timeout(). The returned func releases it.
func (a Appender) lock(path string) (release func() error, err error) {
	lockPath := path + ".lock"
	now := time.Now()
	token := fmt.Sprintf("pid %d at %s (%s)\n", os.Getpid(), now.UTC().Format(time.RFC3339Nano), NewEventID(now))
	deadline := now.Add(a.timeout())
	for {
		err := createLock(lockPath, token)
		if err == nil {
			return func() error { return releaseLock(lockPath, token) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("akashiklog: take lock %s: %w", lockPath, err)
		}
		if a.breakStale(lockPath) {
			continue
		}
		if !time.Now().Before(deadline) {
			holder, _ := os.ReadFile(lockPath)
			return nil, fmt.Errorf("akashiklog: %w: %s is still held after %s (by %s); if no writer is running, delete that file",
				ErrLockTimeout, lockPath, a.timeout(), describeHolder(holder))
		}
		time.Sleep(a.retry())
	}
}

func createLock(lockPath, token string) error {
	f, err := os.OpenFile(lockPath, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(token)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(lockPath)
	}
	return err
}

// breakStale removes the lock if its mtime is older than the stale limit and
// reports whether the caller should try again at once. The lock is renamed
// aside before it is deleted, so that a fresh lock another writer created
// after our Stat is put back rather than deleted.
func (a Appender) breakStale(lockPath string) bool {
	info, err := os.Stat(lockPath)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist) // released meanwhile
	}
	if time.Since(info.ModTime()) <= a.stale() {
		return false
	}
	aside := lockPath + ".stale-" + NewEventID(time.Now())
	if err := os.Rename(lockPath, aside); err != nil {
		return errors.Is(err, fs.ErrNotExist) // another writer broke it first
	}
	if moved, err := os.Stat(aside); err == nil && !os.SameFile(info, moved) {
		os.Link(aside, lockPath) // not the stale lock: restore it unless locked again
	}
	os.Remove(aside)
	return true
}

// releaseLock deletes the lock if it is still ours.
func releaseLock(lockPath, token string) error {
	held, err := os.ReadFile(lockPath)
	if err != nil || string(held) != token {
		return fmt.Errorf("akashiklog: %s was taken over as stale while this writer held it", lockPath)
	}
	if err := os.Remove(lockPath); err != nil {
		return fmt.Errorf("akashiklog: release lock: %w", err)
	}
	return nil
}

func describeHolder(content []byte) string {
	if s := strings.TrimSpace(string(content)); s != "" {
		return s
	}
	return "an unknown writer"
}
