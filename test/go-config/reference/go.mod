module github.com/netns-holder/netns-holder/test/go-config

// The reference decoder: the standard library only (encoding/json, as ceph-csi uses it).
go 1.22
