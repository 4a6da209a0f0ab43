// csi-kubelet makes the calls a kubelet (with an external provisioner for the controller calls)
// makes to a CSI driver over its socket, one call per invocation, so that a test script can put
// plugin restarts, workloads and checks between them:
//
//	csi-kubelet -endpoint SOCK info [-wait 60s]
//	csi-kubelet -endpoint SOCK create -name NAME -size-mib N -fstype ext4 -access single-node-writer \
//	    -param KEY=VALUE... -secrets FILE -volume VOLFILE
//	csi-kubelet -endpoint SOCK stage -volume VOLFILE -staging DIR -secrets FILE
//	csi-kubelet -endpoint SOCK publish -volume VOLFILE -staging DIR -target DIR [-secrets FILE]
//	csi-kubelet -endpoint SOCK unpublish -volume VOLFILE -target DIR
//	csi-kubelet -endpoint SOCK unstage -volume VOLFILE -staging DIR
//	csi-kubelet -endpoint SOCK delete -volume VOLFILE -secrets FILE
//
// VOLFILE is what the provisioner would have put in the PersistentVolume: CreateVolume's volume ID
// and volume context, and the capability it was created with (create writes it; the other calls
// read it). FILE is a JSON object of the secret's keys and values (userID, userKey, adminID,
// adminKey as ceph-csi reads them). Each call prints one line "CALL ok ms=N ..." on success and
// "CALL failed ms=N code=CODE: MESSAGE" (exit 1) on an error; info with -wait retries until the
// plugin answers or the wait ends, as a kubelet does while a plugin restarts.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// volume is the part of a PersistentVolume a kubelet reads back for the node calls.
type volume struct {
	ID      string            `json:"volume_id"`
	Context map[string]string `json:"volume_context"`
	FsType  string            `json:"fs_type"`
	Access  string            `json:"access_mode"`
	Block   bool              `json:"block"`
}

var accessModes = map[string]csi.VolumeCapability_AccessMode_Mode{
	"single-node-writer":        csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER,
	"single-node-single-writer": csi.VolumeCapability_AccessMode_SINGLE_NODE_SINGLE_WRITER,
	"single-node-multi-writer":  csi.VolumeCapability_AccessMode_SINGLE_NODE_MULTI_WRITER,
	"multi-node-multi-writer":   csi.VolumeCapability_AccessMode_MULTI_NODE_MULTI_WRITER,
}

func (v *volume) capability() *csi.VolumeCapability {
	c := &csi.VolumeCapability{AccessMode: &csi.VolumeCapability_AccessMode{Mode: accessModes[v.Access]}}
	if v.Block {
		c.AccessType = &csi.VolumeCapability_Block{Block: &csi.VolumeCapability_BlockVolume{}}
	} else {
		c.AccessType = &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{FsType: v.FsType}}
	}
	return c
}

type keyValues map[string]string

func (kv keyValues) String() string { return fmt.Sprint(map[string]string(kv)) }
func (kv keyValues) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("%q is not KEY=VALUE", s)
	}
	kv[k] = v
	return nil
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: csi-kubelet -endpoint SOCK [-timeout D] info|create|stage|publish|unpublish|unstage|delete [flags]")
	os.Exit(2)
}

func main() {
	endpoint := flag.String("endpoint", "", "the plugin's CSI socket (a path, or unix://PATH)")
	timeout := flag.Duration("timeout", 2*time.Minute, "the bound on one call (the external-provisioner's and kubelet's are 2m-ish)")
	flag.Parse()
	if *endpoint == "" || flag.NArg() < 1 {
		usage()
	}
	call, args := flag.Arg(0), flag.Args()[1:]
	fs := flag.NewFlagSet(call, flag.ExitOnError)
	var (
		volFile = fs.String("volume", "", "the volume file (create writes it, the other calls read it)")
		secrets = fs.String("secrets", "", "a JSON object of the secret's keys and values")
		staging = fs.String("staging", "", "the staging path (the kubelet's globalmount)")
		target  = fs.String("target", "", "the publish path (the pod's volume directory)")
		name    = fs.String("name", "", "create: the volume's name (the provisioner's pvc-UID)")
		sizeMiB = fs.Int64("size-mib", 64, "create: the capacity asked for, MiB")
		fsType  = fs.String("fstype", "ext4", "create: the file system type of a mount volume")
		access  = fs.String("access", "single-node-writer", "create: the access mode (single-node-writer, multi-node-multi-writer, ...)")
		block   = fs.Bool("block", false, "create: a raw block volume instead of a mount volume")
		wait    = fs.Duration("wait", 0, "info: retry until the plugin answers, for at most this long")
		params  = keyValues{}
	)
	fs.Var(params, "param", "create: a StorageClass parameter KEY=VALUE (repeatable)")
	if err := fs.Parse(args); err != nil || fs.NArg() != 0 {
		usage()
	}
	path := strings.TrimPrefix(*endpoint, "unix://")
	start := time.Now()
	detail, err := run(call, path, *timeout, *wait, func() (*request, error) {
		r := &request{staging: *staging, target: *target, name: *name, sizeMiB: *sizeMiB, params: params, volFile: *volFile}
		if *secrets != "" {
			b, err := os.ReadFile(*secrets)
			if err != nil {
				return nil, err
			}
			if err := json.Unmarshal(b, &r.secrets); err != nil {
				return nil, fmt.Errorf("%s: %w", *secrets, err)
			}
		}
		if call == "create" {
			if _, ok := accessModes[*access]; !ok {
				return nil, fmt.Errorf("unknown access mode %q", *access)
			}
			r.vol = &volume{FsType: *fsType, Access: *access, Block: *block}
		} else if call != "info" {
			if *volFile == "" {
				return nil, errors.New("-volume is required")
			}
			b, err := os.ReadFile(*volFile)
			if err != nil {
				return nil, err
			}
			r.vol = &volume{}
			if err := json.Unmarshal(b, r.vol); err != nil {
				return nil, fmt.Errorf("%s: %w", *volFile, err)
			}
		}
		return r, nil
	})
	ms := time.Since(start).Milliseconds()
	if err != nil {
		code := "-"
		if s, ok := status.FromError(err); ok {
			code = s.Code().String()
			err = errors.New(s.Message())
		}
		fmt.Printf("%s failed ms=%d code=%s: %v\n", call, ms, code, err)
		os.Exit(1)
	}
	fmt.Printf("%s ok ms=%d%s\n", call, ms, detail)
}

type request struct {
	vol             *volume
	volFile         string
	secrets         map[string]string
	staging, target string
	name            string
	sizeMiB         int64
	params          map[string]string
}

func run(call, path string, timeout, wait time.Duration, build func() (*request, error)) (string, error) {
	r, err := build()
	if err != nil {
		return "", err
	}
	dial := func() (*grpc.ClientConn, error) {
		return grpc.NewClient("unix://"+path, grpc.WithTransportCredentials(insecure.NewCredentials()))
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if call == "info" {
		deadline := time.Now().Add(wait)
		for {
			// A restarting plugin's socket is missing or refuses: asked again on a fresh connection
			// (no gRPC reconnect backoff between the tries), as the kubelet's plugin watcher waits
			// for a registration, bounded.
			resp, err := nodeGetInfo(ctx, dial)
			if err == nil {
				return " node_id=" + resp.GetNodeId(), nil
			}
			if !time.Now().Before(deadline) {
				return "", err
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	conn, err := dial()
	if err != nil {
		return "", err
	}
	defer conn.Close()
	node, ctrl := csi.NewNodeClient(conn), csi.NewControllerClient(conn)
	switch call {
	case "create":
		resp, err := ctrl.CreateVolume(ctx, &csi.CreateVolumeRequest{
			Name:               r.name,
			CapacityRange:      &csi.CapacityRange{RequiredBytes: r.sizeMiB << 20},
			VolumeCapabilities: []*csi.VolumeCapability{r.vol.capability()},
			Parameters:         r.params,
			Secrets:            r.secrets,
		})
		if err != nil {
			return "", err
		}
		r.vol.ID, r.vol.Context = resp.GetVolume().GetVolumeId(), resp.GetVolume().GetVolumeContext()
		b, err := json.MarshalIndent(r.vol, "", "  ")
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(r.volFile, append(b, '\n'), 0o600); err != nil {
			return "", err
		}
		return " volume_id=" + r.vol.ID, nil
	case "stage":
		// The kubelet makes the staging directory before it calls the plugin.
		if err := os.MkdirAll(r.staging, 0o750); err != nil {
			return "", err
		}
		_, err := node.NodeStageVolume(ctx, &csi.NodeStageVolumeRequest{
			VolumeId: r.vol.ID, StagingTargetPath: r.staging, VolumeCapability: r.vol.capability(),
			Secrets: r.secrets, VolumeContext: r.vol.Context,
		})
		return "", err
	case "publish":
		// ... and the target's parent (the pod's volumes directory); the plugin makes the target.
		if err := os.MkdirAll(filepath.Dir(r.target), 0o750); err != nil {
			return "", err
		}
		_, err := node.NodePublishVolume(ctx, &csi.NodePublishVolumeRequest{
			VolumeId: r.vol.ID, StagingTargetPath: r.staging, TargetPath: r.target,
			VolumeCapability: r.vol.capability(), Secrets: r.secrets, VolumeContext: r.vol.Context,
		})
		return "", err
	case "unpublish":
		_, err := node.NodeUnpublishVolume(ctx, &csi.NodeUnpublishVolumeRequest{VolumeId: r.vol.ID, TargetPath: r.target})
		return "", err
	case "unstage":
		_, err := node.NodeUnstageVolume(ctx, &csi.NodeUnstageVolumeRequest{VolumeId: r.vol.ID, StagingTargetPath: r.staging})
		return "", err
	case "delete":
		_, err := ctrl.DeleteVolume(ctx, &csi.DeleteVolumeRequest{VolumeId: r.vol.ID, Secrets: r.secrets})
		return "", err
	}
	usage()
	return "", nil
}

func nodeGetInfo(ctx context.Context, dial func() (*grpc.ClientConn, error)) (*csi.NodeGetInfoResponse, error) {
	conn, err := dial()
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return csi.NewNodeClient(conn).NodeGetInfo(c, &csi.NodeGetInfoRequest{})
}
