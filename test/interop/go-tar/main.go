// go-tar reads gzip'd tar archives the way opa's tarball loader does (v1/bundle/file.go: gzip.NewReader,
// tar.NewReader, every header until io.EOF, the regular files kept), for tfgate's differential tests.
// Input: one archive per line, base64. Output: one JSON line per archive, {"files":[{name,sha256}]} or {"error"}.
package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
)

type file struct {
	Name   string `json:"name"`
	Sha256 string `json:"sha256"`
}

type result struct {
	Files []file `json:"files,omitempty"`
	Error string `json:"error,omitempty"`
}

func read(archive []byte) result {
	gz, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return result{Error: err.Error()}
	}
	tr := tar.NewReader(gz)
	files := []file{}
	for {
		header, err := tr.Next()
		if err == io.EOF {
			return result{Files: files}
		}
		if err != nil {
			return result{Error: err.Error()}
		}
		if header.Typeflag != tar.TypeReg {
			continue
		}
		h := sha256.New()
		if _, err := io.Copy(h, tr); err != nil {
			return result{Error: err.Error()}
		}
		files = append(files, file{Name: header.Name, Sha256: hex.EncodeToString(h.Sum(nil))})
	}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<30)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		archive, err := base64.StdEncoding.DecodeString(in.Text())
		if err != nil {
			_ = out.Encode(result{Error: err.Error()})
			continue
		}
		_ = out.Encode(read(archive))
	}
}
