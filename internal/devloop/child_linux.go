package devloop

import "syscall"

// childAttr makes the kernel send the server SIGTERM if this process dies
// without stopping it (killed with SIGKILL, say), so no server outlives the
// loop and keeps its port.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
