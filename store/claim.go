package store

import "time"

// Claim is what Tx.DeliveryClaim takes: a deliverer's claim on the
// deliveries it is about to send.
//
// A delivery is claimable at Now when it is pending, due (next_at ≤ Now),
// held by no claim that lasts past Now, its hook is enabled, and no
// earlier notice to the same hook about the same conflict is still
// pending: the notices of one conflict reach a hook in the order they
// were written (detected before escalated before resolved), each only
// once the one before it was delivered or given up. Notices of different
// conflicts, and of different hooks, do not wait for each other.
type Claim struct {
	// Token names this claim (each delivery claimed carries it as Claim):
	// DeliveryRecord and DeliveryRenew act only over deliveries it still
	// holds. A fresh one for every claim.
	Token string
	Now   time.Time
	// Lease is how long the claim holds unless renewed.
	Lease time.Duration
	Limit int
	// PerHook is the most deliveries of one hook the claim takes (0: no
	// limit): a deliverer does not hold more of a hook's than it sends
	// at once, which are what it leaves waiting a lease if it is killed.
	PerHook int
	// Skip lists hooks not to claim for (those the deliverer already
	// sends to as much as it will at once).
	Skip []string
}
