//go:build !linux

package devloop

import "syscall"

// childAttr is Linux's parent-death signal elsewhere: nothing. The loop
// still stops its server on every way out it controls.
func childAttr() *syscall.SysProcAttr { return nil }
