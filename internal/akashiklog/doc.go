// Package akashiklog reads and writes the Akashik reference SDK's field log:
// a JSONL file with one event per line (REGISTER, DEREGISTER, RECORD,
// STATUS_CHANGE).
//
// It is a pure codec. It knows the SDK's wire format, its replay order, its
// conflict rule (reckon) and its lock-file protocol for writers, and nothing
// about arbiter's own database:
//
//	log, err := akashiklog.ReadFile(path) // parse and validate every line
//	state := akashiklog.Replay(log.Events) // sort and fold into agents and entries
//	pairs := akashiklog.Reckon(state)      // the SDK's conflicts
//	err = akashiklog.Append(path, build)   // add a batch under <path>.lock
package akashiklog
