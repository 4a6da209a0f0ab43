package main

import (
	"fmt"
	"math/rand"
	"strings"
)

// generator writes config.json documents aimed at where two readers of the
// same file could part: key spellings (case, Go's folds of U+017F and
// U+212A, \u escapes), duplicate keys and duplicate sections (later wins,
// objects merge, null keeps), duplicate entries for one ID, values of the
// wrong type in fields ceph-csi knows (the whole file fails) and in keys it
// does not (skipped), string escapes, surrogates and invalid UTF-8, numbers
// at the int64 edges, nesting, whitespace and broken syntax. A fixed seed
// gives the same documents on every run (math/rand's seeded source is
// stable across Go releases).
type generator struct {
	r *rand.Rand
	b strings.Builder
}

func newGenerator(seed int64) *generator { return &generator{r: rand.New(rand.NewSource(seed))} }

func (g *generator) chance(percent int) bool   { return g.r.Intn(100) < percent }
func (g *generator) pick(list []string) string { return list[g.r.Intn(len(list))] }

var (
	clusterIDKeys = []string{"clusterID", "clusterID", "clusterID", "ClusterID", "clusterid",
		"CLUSTERID", "clu\u017fterID", "cluster\\u0049D", "clusterId ", "cluster_ID"}
	monitorsKeys = []string{"monitors", "monitors", "Monitors", "MONITORS", "moni\u017fors",
		"monitor", "m\\u006fnitors"}
	rbdKeys    = []string{"rbd", "rbd", "rbd", "RBD", "Rbd", "rBd", "r\\u0062d", "rbd ", "rbds"}
	cephFSKeys = []string{"cephFS", "cephFS", "cephfs", "CephFS", "CEPHFS", "ceph\u017fs", "ceph_fs"}
	nfsKeys    = []string{"nfs", "nfs", "NFS", "Nfs", "nf\u017f", "n\\u0066s", "nfs4"}
	pathKeys   = []string{"netNamespaceFilePath", "netNamespaceFilePath", "netNamespaceFilePath",
		"NetNamespaceFilePath", "netnamespacefilepath", "NETNAMESPACEFILEPATH",
		"netName\u017fpaceFilePath", "netNamespace\\u0046ilePath", "netNamespaceFilePath\\u0000",
		"net_namespace_file_path", "netNamespaceFilePathX"}
	affinityKeys = []string{"readAffinity", "ReadAffinity", "readaffinity"}
	unknownKeys  = []string{"radosNamespace", "x", "rbd2", "", "\\u212a", "netNamespaceFilePaths",
		"k\\u0000", "\xff", "subvolumeGroup"}
	clusterIDs = []string{"a", "a", "b", "ceph-a", "A", "", "ceph-b"}
	paths      = []string{"/var/lib/kubelet/plugins/rbd.csi.ceph.com/a.net.ns", "/p/a.net.ns",
		"/p/b.net.ns", "", "/p/\\u0061.net.ns", "\\/p\\/c.net.ns", "/p/\\ud83d\\ude00",
		"/p/\\ud83d", "/p/\\udc00\\ud83d", "/p/\xe2\x82", "/p/\xc0\xaf", "/p/\xed\xa0\x80",
		"/p/\xf4\x90\x80\x80", "/p/\xe2\x84\xaa", "/p/\\u0000x", "/p/tab\\t", "/p/\x7f"}
	monitorValues = []string{"198.18.0.1:6789", "198.18.0.2", "[v2:198.18.0.1:3300,v1:198.18.0.1:6789]",
		"", "mon\\u002dx"}
	numbers = []string{"0", "1", "-0", "3", "1.0", "1e2", "-1", "9223372036854775807",
		"9223372036854775808", "-9223372036854775808", "-9223372036854775809", "0.5"}
	spaces = []string{"", "", "", " ", "\n", "\t", "\r\n  "}
)

func (g *generator) ws() { g.b.WriteString(g.pick(spaces)) }

// str writes a JSON string whose content is s (already JSON-escaped where
// it needs to be), escaping some plain ASCII letters as \u too.
func (g *generator) str(s string) {
	g.b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' { // an escape already: copied whole
			n := 2
			if i+1 < len(s) && s[i+1] == 'u' {
				n = 6
			}
			g.b.WriteString(s[i:min(i+n, len(s))])
			i += n - 1
			continue
		}
		if c >= 'a' && c <= 'z' && g.chance(3) {
			fmt.Fprintf(&g.b, "\\u%04x", c)
			continue
		}
		g.b.WriteByte(c)
	}
	g.b.WriteByte('"')
}

func (g *generator) key(k string) {
	g.ws()
	g.str(k)
	g.ws()
	g.b.WriteByte(':')
	g.ws()
}

// wrong writes a value of some other type than want ("string", "list",
// "object", "int", "bool").
func (g *generator) wrong(want string) {
	for {
		switch g.r.Intn(5) {
		case 0:
			if want != "string" {
				g.str("x")
				return
			}
		case 1:
			if want != "list" {
				g.b.WriteString("[\"x\"]")
				return
			}
		case 2:
			if want != "object" {
				g.b.WriteString("{}")
				return
			}
		case 3:
			if want != "int" {
				g.b.WriteString(g.pick(numbers))
				return
			}
		case 4:
			if want != "bool" {
				g.b.WriteString("true")
				return
			}
		}
	}
}

// scalar writes a value for a field of type want: mostly right, sometimes
// null, rarely wrong.
func (g *generator) scalar(want string, right func()) {
	switch {
	case g.chance(3):
		g.wrong(want)
	case g.chance(12):
		g.b.WriteString("null")
	default:
		right()
	}
}

func (g *generator) stringList(values []string) {
	g.scalar("list", func() {
		g.b.WriteByte('[')
		n := g.r.Intn(4)
		for i := 0; i < n; i++ {
			if i > 0 {
				g.b.WriteByte(',')
			}
			g.ws()
			g.scalar("string", func() { g.str(g.pick(values)) })
		}
		g.ws()
		g.b.WriteByte(']')
	})
}

// anything writes an arbitrary value for a key nobody knows, now and then
// deeply nested.
func (g *generator) anything(depth int) {
	switch r := g.r.Intn(8); {
	case r == 0 && depth < 4:
		g.b.WriteByte('{')
		g.key(g.pick(pathKeys))
		g.anything(depth + 1)
		g.b.WriteByte('}')
	case r == 1 && depth < 4:
		g.b.WriteByte('[')
		g.anything(depth + 1)
		g.b.WriteString(",1]")
	case r == 2 && g.chance(5):
		n := 1 + g.r.Intn(200)
		g.b.WriteString(strings.Repeat("[", n) + strings.Repeat("]", n))
	case r == 3:
		g.b.WriteString(g.pick(numbers))
	case r == 4:
		g.b.WriteString("false")
	default:
		g.str(g.pick(paths))
	}
}

func (g *generator) section(keys []string, members func(i int)) {
	g.scalar("object", func() {
		g.b.WriteByte('{')
		n := g.r.Intn(4)
		for i := 0; i < n; i++ {
			if i > 0 {
				g.b.WriteByte(',')
			}
			members(i)
		}
		g.ws()
		g.b.WriteByte('}')
	})
}

func (g *generator) pathMember() {
	if g.chance(75) {
		g.key(g.pick(pathKeys))
		g.scalar("string", func() { g.str(g.pick(paths)) })
		return
	}
	g.key(g.pick(unknownKeys))
	g.anything(0)
}

func (g *generator) entry() {
	if g.chance(2) {
		g.b.WriteString("null")
		return
	}
	if g.chance(1) {
		g.wrong("object")
		return
	}
	g.b.WriteByte('{')
	n := g.r.Intn(9)
	for i := 0; i < n; i++ {
		if i > 0 {
			g.b.WriteByte(',')
		}
		switch g.r.Intn(9) {
		case 0, 1:
			g.key(g.pick(clusterIDKeys))
			g.scalar("string", func() { g.str(g.pick(clusterIDs)) })
		case 2:
			g.key(g.pick(monitorsKeys))
			g.stringList(monitorValues)
		case 3, 4:
			g.key(g.pick(rbdKeys))
			g.section(rbdKeys, func(int) {
				if g.chance(15) {
					g.key(g.pick([]string{"mirrorDaemonCount", "MirrorDaemonCount", "radosNamespace"}))
					g.scalar("int", func() { g.b.WriteString(g.pick(numbers)) })
					return
				}
				g.pathMember()
			})
		case 5:
			g.key(g.pick(cephFSKeys))
			g.section(cephFSKeys, func(int) {
				if g.chance(15) {
					g.key(g.pick([]string{"subvolumeGroup", "\u212aernelMountOptions", "fuseMountOptions"}))
					g.scalar("string", func() { g.str("csi") })
					return
				}
				g.pathMember()
			})
		case 6:
			g.key(g.pick(nfsKeys))
			g.section(nfsKeys, func(int) { g.pathMember() })
		case 7:
			g.key(g.pick(affinityKeys))
			g.section(affinityKeys, func(int) {
				if g.chance(50) {
					g.key("enabled")
					g.scalar("bool", func() { g.b.WriteString(g.pick([]string{"true", "false"})) })
				} else {
					g.key("crushLocationLabels")
					g.stringList([]string{"zone", "rack"})
				}
			})
		default:
			g.key(g.pick(unknownKeys))
			g.anything(0)
		}
	}
	g.ws()
	g.b.WriteByte('}')
}

// document returns one config.json.
func (g *generator) document() []byte {
	g.b.Reset()
	if g.chance(1) {
		g.b.WriteString("\xef\xbb\xbf") // a byte-order mark: Go refuses it
	}
	g.ws()
	switch {
	case g.chance(2):
		g.b.WriteString("null")
	case g.chance(1):
		g.wrong("list")
	default:
		g.b.WriteByte('[')
		n := g.r.Intn(5)
		for i := 0; i < n; i++ {
			if i > 0 {
				g.b.WriteByte(',')
			}
			g.ws()
			g.entry()
		}
		g.ws()
		g.b.WriteByte(']')
	}
	g.ws()
	doc := []byte(g.b.String())
	// Broken syntax, now and then: a byte dropped, changed or appended.
	if len(doc) > 0 && g.chance(4) {
		i := g.r.Intn(len(doc))
		switch g.r.Intn(3) {
		case 0:
			doc = append(doc[:i], doc[i+1:]...)
		case 1:
			const swaps = "{}[],:\"\\x0 \x01"
			doc[i] = swaps[g.r.Intn(len(swaps))]
		case 2:
			doc = append(doc, g.pick([]string{",", "]", "x", " ", "/", "\x00"})...)
		}
	}
	return doc
}
