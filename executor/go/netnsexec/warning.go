package netnsexec

import (
	"errors"
	"log/slog"
	"sync"
)

// ErrNoHolderPath is what Namespace.Warning wraps (errors.Is) when a Cluster
// source's entry in ceph-csi's config.json has no netNamespaceFilePath for
// the kind. The command ran, in the caller's own network namespace, as
// ceph-csi's own commands would: not an error of Run, but usually a holder
// whose path is missing from the config. Keys are matched as ceph-csi's Go
// decoder matches them, so "RBD" or "NetNamespaceFilePath" count as
// written.
var ErrNoHolderPath = errors.New("no netNamespaceFilePath for the cluster and kind")

// ConfigWarning is the value of Namespace.Warning: what the library said
// about the source although the command ran.
type ConfigWarning struct {
	Source  Source
	Message string // names the cluster, the config file and the section
}

func (w *ConfigWarning) Error() string { return "netnsexec: " + w.Message }
func (w *ConfigWarning) Unwrap() error { return ErrNoHolderPath }

// Each distinct warning is logged once per process (slog's default logger,
// level Warn), however many commands run with it: a node plugin runs one
// per volume operation, and the line says nothing new the second time.
var warned sync.Map

func logOnce(w *ConfigWarning) {
	if _, seen := warned.LoadOrStore(w.Message, struct{}{}); seen {
		return
	}
	slog.Warn("netnsexec: "+w.Message, "source", w.Source.String())
}
