// Command go-config compares netns-exec's reader of ceph-csi's config.json
// with encoding/json itself, the decoder ceph-csi uses: every committed
// corpus file (corpus/*.json: the named cases) and a few thousand documents
// from a seeded generator go through both, and each must come out the same
// (render.go: which entries exist, their IDs, monitors and holder paths, and
// which entry a cluster ID selects), or the same failure. It also checks
// that the key folding both sides use covers every rune Go folds into ASCII.
//
//	go-config -driver BIN [-seed N] [-cases N] [-corpus DIR]
//	go-config -render FILE    the reference's lines for one file
//
// BIN is test/go-config/config_driver.cpp built (netns_config_driver): it
// reads the same framed documents on stdin and prints its lines for each.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

type testCase struct {
	name string
	data []byte
}

func main() {
	driver := flag.String("driver", "", "the C++ driver (netns_config_driver)")
	seed := flag.Int64("seed", 21, "generator seed")
	cases := flag.Int("cases", 4000, "generated documents")
	corpus := flag.String("corpus", "", "directory of named cases (*.json)")
	renderFile := flag.String("render", "", "print the reference's lines for this file and exit")
	flag.Parse()
	if *renderFile != "" {
		data, err := os.ReadFile(*renderFile)
		if err != nil {
			fail("%v", err)
		}
		fmt.Print(render(data))
		return
	}
	if *driver == "" {
		fail("-driver is required")
	}
	start := time.Now()
	checkFolds(*driver)

	var all []testCase
	if *corpus != "" {
		files, err := filepath.Glob(filepath.Join(*corpus, "*.json"))
		if err != nil || len(files) == 0 {
			fail("no corpus files in %s (%v)", *corpus, err)
		}
		sort.Strings(files)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				fail("%v", err)
			}
			all = append(all, testCase{name: filepath.Base(f), data: data})
		}
	}
	named := len(all)
	g := newGenerator(*seed)
	for i := 0; i < *cases; i++ {
		all = append(all, testCase{name: fmt.Sprintf("generated #%d (seed %d)", i, *seed), data: g.document()})
	}

	got := runDriver(*driver, all)
	mismatches, errors := 0, 0
	for i, c := range all {
		want := render(c.data)
		if want == "error\n" {
			errors++
		}
		if got[i] == want {
			continue
		}
		mismatches++
		if mismatches <= 5 {
			fmt.Printf("MISMATCH %s\n  input: %s\n  encoding/json:\n%s  netns-exec:\n%s", c.name,
				escape(string(c.data)), indent(want), indent(got[i]))
		}
	}
	fmt.Printf("go-config: %d documents (%d named, %d generated), %d that encoding/json refuses, %d mismatches, %.1fs\n",
		len(all), named, *cases, errors, mismatches, time.Since(start).Seconds())
	if mismatches > 0 {
		os.Exit(1)
	}
	// A generator whose documents all fail (or none does) compares little.
	if generated := *cases; generated > 100 && (errors < generated/10 || errors > generated*6/10) {
		fail("the generator is off balance: %d of %d documents refused", errors, len(all))
	}
}

// runDriver hands every document to the driver in one run: "<length>\n"
// then the bytes; the driver answers each with its lines and a "." line.
func runDriver(driver string, all []testCase) []string {
	var in bytes.Buffer
	for _, c := range all {
		fmt.Fprintf(&in, "%d\n", len(c.data))
		in.Write(c.data)
	}
	cmd := exec.Command(driver)
	cmd.Stdin = &in
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		fail("%s: %v", driver, err)
	}
	var results []string
	var cur strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if sc.Text() == "." {
			results = append(results, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteString(sc.Text() + "\n")
	}
	if len(results) != len(all) {
		fail("%s answered %d documents of %d", driver, len(results), len(all))
	}
	return results
}

// foldRune is encoding/json's fold (fold.go): the smallest rune of the
// case orbit. checkFolds proves on the decoder itself that exactly these
// runes outside ASCII name an ASCII-tagged field, then that the driver's
// folding agrees.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

func checkFolds(driver string) {
	var want []string
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		f := foldRune(r)
		if f >= 0x80 {
			continue
		}
		// The decoder itself: "<r>" must set the field tagged with the
		// lower-case ASCII letter.
		tag := strings.ToLower(string(f))
		if !decodesInto(fmt.Sprintf(`{%q: "hit"}`, string(r)), tag) {
			fail("encoding/json does not match %U to field %q although it folds to %q", r, tag, f)
		}
		want = append(want, fmt.Sprintf("%04X %c\n", r, f))
	}
	out, err := exec.Command(driver, "--folds").Output()
	if err != nil {
		fail("%s --folds: %v", driver, err)
	}
	if string(out) != strings.Join(want, "") {
		fail("key folding differs: encoding/json folds these runes into ASCII:\n%sthe driver:\n%s",
			strings.Join(want, ""), out)
	}
}

// decodesInto reports whether doc's only key lands in a field tagged tag
// (one struct per ASCII letter a field could be named with).
func decodesInto(doc, tag string) bool {
	switch tag {
	case "k":
		var v struct {
			F string `json:"k"`
		}
		return json.Unmarshal([]byte(doc), &v) == nil && v.F == "hit"
	case "s":
		var v struct {
			F string `json:"s"`
		}
		return json.Unmarshal([]byte(doc), &v) == nil && v.F == "hit"
	}
	fail("no probe struct for field %q: add one", tag)
	return false
}

func indent(s string) string {
	if s == "" {
		return "    (nothing)\n"
	}
	return "    " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n    ") + "\n"
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "go-config: "+format+"\n", args...)
	os.Exit(1)
}
