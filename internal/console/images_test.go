package console

import (
	"image"
	_ "image/gif"
	_ "image/jpeg"
	_ "image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// imageRef is a Markdown image, ![text](path "title"), or an HTML <img src>.
var imageRef = regexp.MustCompile(`!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)|<img\s[^>]*src="([^"]+)"`)

// Every image README and docs/ show (the console's screenshots among them)
// is in the repository and reads as an image: a renamed or deleted
// screenshot fails here, with no browser.
func TestDocumentedImagesExist(t *testing.T) {
	root := filepath.Join("..", "..")
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append([]string{filepath.Join(root, "README.md")}, docs...)
	seen := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range imageRef.FindAllStringSubmatch(string(b), -1) {
			ref := m[1] + m[2]
			if strings.Contains(ref, "://") {
				t.Errorf("%s shows %s from another site; keep images in the repository", doc, ref)
				continue
			}
			seen++
			p := filepath.Join(filepath.Dir(doc), filepath.FromSlash(strings.SplitN(ref, "#", 2)[0]))
			f, err := os.Open(p)
			if err != nil {
				t.Errorf("%s shows %s: %v", doc, ref, err)
				continue
			}
			cfg, format, err := image.DecodeConfig(f)
			f.Close()
			if err != nil || cfg.Width == 0 || cfg.Height == 0 {
				t.Errorf("%s shows %s, which does not read as an image (%v)", doc, ref, err)
				continue
			}
			t.Logf("%s: %s, %s %dx%d", doc, ref, format, cfg.Width, cfg.Height)
		}
	}
	// README shows the console's list and its 412.
	if seen < 2 {
		t.Errorf("README and docs/ show %d images; README shows at least the console's two screenshots", seen)
	}
}
