module github.com/netns-holder/netns-holder/executor/go

// The oldest Go this module builds with. Standard library and cgo only.
go 1.22
