package pgtest

import "os/exec"

// runAs is never needed on Windows: there is no root there that initdb
// refuses, so the tests run PostgreSQL as themselves.
func runAs(*exec.Cmd, int, int) {}

// detach leaves cmd as it is: a process started on Windows outlives its
// parent already.
func detach(*exec.Cmd) {}
