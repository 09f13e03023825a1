package devloop

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// stamp is what a poll compares: a file's modification time and size.
type stamp struct {
	mod  time.Time
	size int64
}

// snapshot holds the stamp of every file under the watched folders, by path
// relative to the root. Polling a few dozen files is cheaper than a
// dependency on a notification library, and works the same everywhere.
type snapshot map[string]stamp

// take stamps every file under dirs (relative to root). Editors' hidden
// files and backups are left out: saving with them is one change, not two.
func take(root string, dirs []string) snapshot {
	s := snapshot{}
	for _, dir := range dirs {
		filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || ignored(d.Name()) {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil // removed while walking: the next poll sees it gone
			}
			rel, _ := filepath.Rel(root, p)
			s[filepath.ToSlash(rel)] = stamp{info.ModTime(), info.Size()}
			return nil
		})
	}
	return s
}

func ignored(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasSuffix(name, "~") ||
		strings.HasSuffix(name, ".swp") || strings.HasSuffix(name, ".swx")
}

// diff lists, in order, the paths created, removed or changed from s to t.
func (s snapshot) diff(t snapshot) []string {
	var out []string
	for p, st := range t {
		if old, ok := s[p]; !ok || !old.mod.Equal(st.mod) || old.size != st.size {
			out = append(out, p)
		}
	}
	for p := range s {
		if _, ok := t[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}
