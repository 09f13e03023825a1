package gen

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
)

// Output is what a generation produces: file contents by slash path relative
// to the repository root, and the folders it owns entirely. Nothing is
// written until Write is called.
type Output struct {
	Files map[string][]byte
	// Owned folders hold only generated files: a file there that the
	// generation did not produce is stale and removed by Write.
	Owned []string
	// Notes are things the caller should be told, e.g. a check that was skipped.
	Notes []string
}

// Change is one difference between an Output and the files on disk.
type Change struct {
	Path string
	Kind string // "create", "update" or "delete"
}

// Changes compares the output with the files under root, in path order.
func (o *Output) Changes(root string) ([]Change, error) {
	var out []Change
	for p, want := range o.Files {
		have, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			out = append(out, Change{p, "create"})
		case err != nil:
			return nil, err
		case !bytes.Equal(have, want):
			out = append(out, Change{p, "update"})
		}
	}
	for _, dir := range o.Owned {
		err := filepath.WalkDir(filepath.Join(root, filepath.FromSlash(dir)), func(p string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			if _, ok := o.Files[rel]; !ok {
				out = append(out, Change{rel, "delete"})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Write brings the files under root in line with the output and returns what
// it changed. Files that are already equal are not touched, so their
// modification times (and the Go build cache) survive.
func (o *Output) Write(root string) ([]Change, error) {
	changes, err := o.Changes(root)
	if err != nil {
		return nil, err
	}
	for _, c := range changes {
		full := filepath.Join(root, filepath.FromSlash(c.Path))
		if c.Kind == "delete" {
			if err := os.Remove(full); err != nil {
				return nil, err
			}
			removeEmptyParents(root, path.Dir(c.Path))
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(full, o.Files[c.Path], 0o644); err != nil {
			return nil, err
		}
	}
	return changes, nil
}

// removeEmptyParents removes dir and its parents below root while they are empty.
func removeEmptyParents(root, dir string) {
	for dir != "." && dir != "/" {
		if os.Remove(filepath.Join(root, filepath.FromSlash(dir))) != nil {
			return
		}
		dir = path.Dir(dir)
	}
}
