// Command arbiter is a review desk for an Akashik field: it lists the
// conflicts agents could not settle, shows both sides, and records the
// decisions of the people who settle them.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
