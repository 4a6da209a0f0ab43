package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// render is what ceph-csi makes of a config.json, one line per fact: "error"
// when json.Unmarshal fails (ceph-csi then uses no cluster of the file), else
// every entry as decoded and, for every cluster ID in it (and one that is in
// none), which entry ceph-csi's lookup picks (the first with that ID). The
// C++ driver (config_driver.cpp) prints the same lines for netns-exec's
// reader; the two must be identical for every input.
func render(data []byte) string {
	var config []clusterInfo
	if err := json.Unmarshal(data, &config); err != nil {
		return "error\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ok %d\n", len(config))
	var ids []string
	seen := map[string]bool{}
	for i, c := range config {
		fmt.Fprintf(&b, "entry %d id=%s monitors=%s rbd=%s cephfs=%s nfs=%s\n", i, escape(c.ClusterID),
			escapeList(c.Monitors), escape(c.RBD.NetNamespaceFilePath),
			escape(c.CephFS.NetNamespaceFilePath), escape(c.NFS.NetNamespaceFilePath))
		if !seen[c.ClusterID] {
			seen[c.ClusterID] = true
			ids = append(ids, c.ClusterID)
		}
	}
	for _, id := range append(ids, "zz-in-no-entry") {
		found := -1
		for i := range config {
			if config[i].ClusterID == id {
				found = i
				break
			}
		}
		fmt.Fprintf(&b, "find %s %d\n", escape(id), found)
	}
	return b.String()
}

// escape keeps printable ASCII but the backslash and writes every other byte
// as \xHH, so both sides print byte-identical lines for any string.
func escape(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c > 0x20 && c < 0x7f && c != '\\' && c != '"' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "\\x%02x", c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func escapeList(list []string) string {
	parts := make([]string, len(list))
	for i, s := range list {
		parts[i] = escape(s)
	}
	return "[" + strings.Join(parts, ",") + "]"
}
