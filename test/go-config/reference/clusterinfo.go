package main

// The shape ceph-csi decodes /etc/ceph-csi-config/config.json into
// (ceph-csi api/deploy/kubernetes/csi-config-map.go): the same Go types and
// json tags, so encoding/json matches, folds and type-checks keys exactly as
// it does in ceph-csi.

type clusterInfo struct {
	ClusterID    string       `json:"clusterID"`
	Monitors     []string     `json:"monitors"`
	CephFS       cephFS       `json:"cephFS"`
	RBD          rbd          `json:"rbd"`
	NFS          nfs          `json:"nfs"`
	ReadAffinity readAffinity `json:"readAffinity"`
}

type cephFS struct {
	NetNamespaceFilePath string `json:"netNamespaceFilePath"`
	SubvolumeGroup       string `json:"subvolumeGroup"`
	RadosNamespace       string `json:"radosNamespace"`
	KernelMountOptions   string `json:"kernelMountOptions"`
	FuseMountOptions     string `json:"fuseMountOptions"`
}

type rbd struct {
	NetNamespaceFilePath string `json:"netNamespaceFilePath"`
	RadosNamespace       string `json:"radosNamespace"`
	MirrorDaemonCount    int    `json:"mirrorDaemonCount"`
}

type nfs struct {
	NetNamespaceFilePath string `json:"netNamespaceFilePath"`
}

type readAffinity struct {
	Enabled             bool     `json:"enabled"`
	CrushLocationLabels []string `json:"crushLocationLabels"`
}
