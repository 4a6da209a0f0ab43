package netnsexec

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"runtime"
	"syscall"
)

// stdio is the command's descriptors 0, 1, 2 and the goroutines that copy
// between pipes and the caller's readers and writers. The child gets its
// own copies (dup2 in the child), so ours of the child's ends are closed as
// soon as the C call returns.
type stdio struct {
	childFd    [3]int
	childEnds  []*os.File // closed after the run: pipe ends given to the child, /dev/null
	parentEnds []*os.File // closed after the copiers: our pipe ends
	keep       []*os.File // the caller's own files, kept alive during the run
	copiers    []func() error
	errs       chan error
}

func newStdio(stdin io.Reader, stdout, stderr io.Writer) (s *stdio, err error) {
	s = &stdio{}
	defer func() {
		if err != nil {
			s.closeAll()
		}
	}()
	if s.childFd[0], err = s.reader(stdin); err != nil {
		return nil, err
	}
	if s.childFd[1], err = s.writer(stdout); err != nil {
		return nil, err
	}
	if stderr != nil && interfaceEqual(stderr, stdout) {
		s.childFd[2] = s.childFd[1]
	} else if s.childFd[2], err = s.writer(stderr); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *stdio) reader(r io.Reader) (int, error) {
	if r == nil {
		f, err := os.Open(os.DevNull)
		if err != nil {
			return -1, err
		}
		s.childEnds = append(s.childEnds, f)
		return int(f.Fd()), nil
	}
	if f, ok := r.(*os.File); ok {
		s.keep = append(s.keep, f)
		return int(f.Fd()), nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return -1, err
	}
	s.childEnds = append(s.childEnds, pr)
	s.parentEnds = append(s.parentEnds, pw)
	s.copiers = append(s.copiers, func() error {
		_, err := io.Copy(pw, r)
		if skipStdinCopyError(err) {
			err = nil
		}
		if cerr := pw.Close(); err == nil && !errors.Is(cerr, os.ErrClosed) {
			err = cerr
		}
		return err
	})
	return int(pr.Fd()), nil
}

func (s *stdio) writer(w io.Writer) (int, error) {
	if w == nil {
		f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return -1, err
		}
		s.childEnds = append(s.childEnds, f)
		return int(f.Fd()), nil
	}
	if f, ok := w.(*os.File); ok {
		s.keep = append(s.keep, f)
		return int(f.Fd()), nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return -1, err
	}
	s.childEnds = append(s.childEnds, pw)
	s.parentEnds = append(s.parentEnds, pr)
	s.copiers = append(s.copiers, func() error {
		_, err := io.Copy(w, pr)
		pr.Close()
		return err
	})
	return int(pw.Fd()), nil
}

func (s *stdio) start() {
	s.errs = make(chan error, len(s.copiers))
	for _, f := range s.copiers {
		go func(f func() error) { s.errs <- f() }(f)
	}
}

func (s *stdio) closeChildEnds() {
	for _, f := range s.childEnds {
		f.Close()
	}
	s.childEnds = nil
	// The caller's files were only lent by descriptor number: they must not be
	// finalized (closed) while the C call uses them.
	runtime.KeepAlive(s.keep)
}

// wait returns the first copying error once every copier is done.
func (s *stdio) wait() error {
	var first error
	for range s.copiers {
		if err := <-s.errs; err != nil && first == nil {
			first = err
		}
	}
	s.copiers = nil
	return first
}

func (s *stdio) closeAll() {
	s.closeChildEnds()
	for _, f := range s.parentEnds {
		f.Close()
	}
	s.parentEnds = nil
}

// The command may exit without reading all of its stdin, or close it: as
// os/exec, that is not an error of the run.
func skipStdinCopyError(err error) bool {
	var pe *fs.PathError
	return err != nil && (errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) ||
		(errors.As(err, &pe) && pe.Op == "write" && errors.Is(pe.Err, syscall.EPIPE)))
}

// interfaceEqual protects against panics from comparing non-comparable
// dynamic types (a writer that is a slice or map based type).
func interfaceEqual(a, b any) (equal bool) {
	defer func() {
		if recover() != nil {
			equal = false
		}
	}()
	return a == b
}
