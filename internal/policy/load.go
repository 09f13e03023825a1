package policy

import "os"

// Load reads and parses the policies file at path (named so in messages).
func Load(path string) (*Policies, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}
