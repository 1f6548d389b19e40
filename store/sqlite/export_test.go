package sqlite

// Present is the check of each write that the field file is still at its
// path, for the benchmark.
func Present(s *Store) error { return s.present("WRITE") }
