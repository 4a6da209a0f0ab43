module github.com/netns-holder/netns-holder/test/csi/kubelet

go 1.25.0

require (
	github.com/container-storage-interface/spec v1.14.0
	google.golang.org/grpc v1.79.3
)

require (
	golang.org/x/net v0.55.0 // indirect
	golang.org/x/sys v0.45.0 // indirect
	golang.org/x/text v0.37.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20251202230838-ff82c1b0f217 // indirect
	google.golang.org/protobuf v1.36.10 // indirect
)
