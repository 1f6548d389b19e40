//go:build unix

package pgtest

import (
	"os/exec"
	"syscall"
)

// runAs makes cmd run as the user uid and group gid.
func runAs(cmd *exec.Cmd, uid, gid int) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
}

// detach starts cmd in a session of its own, so that it outlives the
// test process's group.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
