// Prints Go's unicode.Version, then the ranges of code points unicode.IsPrint accepts, one "first last" (hex)
// a line. Terraform and OpenTofu escape every other code point in an instance key (addrs.toHCLQuotedString).
package main

import (
	"bufio"
	"fmt"
	"os"
	"unicode"
)

func main() {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	fmt.Fprintln(w, unicode.Version)
	first := rune(-1)
	for r := rune(0); r <= unicode.MaxRune+1; r++ {
		printable := r <= unicode.MaxRune && unicode.IsPrint(r)
		if printable && first < 0 {
			first = r
		}
		if !printable && first >= 0 {
			fmt.Fprintf(w, "%x %x\n", first, r-1)
			first = -1
		}
	}
}
