package netnsexec

import "fmt"

// DefaultConfig is ceph-csi's cluster configuration, where Cluster looks up
// netNamespaceFilePath unless WithConfig names another file.
const DefaultConfig = "/etc/ceph-csi-config/config.json"

// Kind says which netNamespaceFilePath of a ceph-csi cluster entry applies.
type Kind int

const (
	RBD    Kind = iota // "rbd": {"netNamespaceFilePath": ...} (the default)
	CephFS             // "cephFS": {...}
	NFS                // "nfs": {...}
)

func (k Kind) String() string {
	switch k {
	case RBD:
		return "rbd"
	case CephFS:
		return "cephfs"
	case NFS:
		return "nfs"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

type sourceKind int

const (
	sourceNone sourceKind = iota
	sourceNetns
	sourceCluster
	sourceSocket
)

// Source says where the network namespace comes from. Make one with Netns,
// Cluster or Socket; the zero Source is refused (ErrInvalidArgument).
// A Source is a small value: copy it freely, share it between goroutines.
type Source struct {
	kind      sourceKind
	path      string // Netns, Socket
	clusterID string // Cluster
	config    string
	cfgKind   Kind
}

// Netns names a namespace file: a holder's <ID>.net.ns (what ceph-csi's
// netNamespaceFilePath names), /run/netns/NAME or /proc/PID/ns/net (these
// two, with no holder record, only with Cmd.AllowUnrecordedNetns). A path
// that is a holder's unix socket (<ID>.net.sock) is asked over the socket,
// as Socket does.
func Netns(path string) Source { return Source{kind: sourceNetns, path: path} }

// Cluster looks up netNamespaceFilePath for the cluster ID in ceph-csi's
// configuration (DefaultConfig, kind RBD unless changed with WithConfig and
// WithKind). An empty or absent path means "no holder": the command runs in
// the caller's own network namespace, as ceph-csi does, and
// Cmd.Namespace.Own reports it.
func Cluster(id string) Source {
	return Source{kind: sourceCluster, clusterID: id, config: DefaultConfig, cfgKind: RBD}
}

// Socket asks a holder's <ID>.net.sock for the namespace descriptor (no
// hostPID needed by anyone).
func Socket(path string) Source { return Source{kind: sourceSocket, path: path} }

// WithConfig returns a copy of a Cluster source that reads the given
// ceph-csi configuration file instead of DefaultConfig.
func (s Source) WithConfig(file string) Source {
	s.config = file
	return s
}

// WithKind returns a copy of a Cluster source that uses the given kind's
// netNamespaceFilePath.
func (s Source) WithKind(k Kind) Source {
	s.cfgKind = k
	return s
}

func (s Source) String() string {
	switch s.kind {
	case sourceNetns:
		return fmt.Sprintf("netns %q", s.path)
	case sourceCluster:
		return fmt.Sprintf("cluster %q (%s, %q)", s.clusterID, s.cfgKind, s.config)
	case sourceSocket:
		return fmt.Sprintf("socket %q", s.path)
	}
	return "no source"
}
