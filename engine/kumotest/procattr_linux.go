package kumotest

import (
	"os/exec"
	"syscall"
)

// endWithParent has the kernel stop kumo when the test process dies, so
// a test binary killed on a timeout leaves no emulator behind.
func endWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
