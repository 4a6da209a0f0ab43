package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netns-holder/netns-holder/executor/go/internal/holdertest"
	"github.com/netns-holder/netns-holder/executor/go/netnsexec"
)

func TestRunsInTheHolderNamespace(t *testing.T) {
	h := holdertest.Start(t)
	stdout, stderr, err := ExecuteCommandWithNSEnter(context.Background(), h.Link, "sh", "-c",
		"readlink /proc/self/ns/net; echo note >&2")
	if err != nil || stdout != fmt.Sprintf("net:[%d]\n", h.Ino) || stderr != "note\n" {
		t.Fatalf("stdout %q stderr %q err %v, want net:[%d]", stdout, stderr, err, h.Ino)
	}
}

func TestRefusedIsTypedAndSaysNothingRan(t *testing.T) {
	h := holdertest.Start(t)
	HolderWait = 0
	defer func() { HolderWait = 5 * time.Second }()
	_, _, err := ExecuteCommandWithNSEnter(context.Background(), filepath.Join(h.Dir, "other.net.ns"), "true")
	if !errors.Is(err, netnsexec.ErrRefused) || !errors.Is(err, netnsexec.ErrNotPublished) {
		t.Fatalf("%v, want a refusal for an unpublished holder", err)
	}
	if !strings.Contains(err.Error(), "nothing was run") {
		t.Fatalf("%q", err)
	}
}

func TestTheContextStopsTheCommand(t *testing.T) {
	h := holdertest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := ExecuteCommandWithNSEnter(ctx, h.Link, "sleep", "600")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v, want it to wrap context.DeadlineExceeded", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("took %v", took)
	}
}

func TestSecretsStayOutOfErrors(t *testing.T) {
	h := holdertest.Start(t)
	_, _, err := ExecuteCommandWithNSEnter(context.Background(), h.Link, "sh", "-c", "exit 1", "sh",
		"--key=AQBsecretsecret", "-o", "name=admin,secret=AQBothersecret")
	var exit *netnsexec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("%v, want exit status 1", err)
	}
	if strings.Contains(err.Error(), "AQB") {
		t.Fatalf("a secret is in the error: %q", err)
	}
}
