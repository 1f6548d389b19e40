package deliver

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The retry schedule (docs/notifications.md): after the n-th failed try
// the next waits FirstRetry·2^(n-1), at most MaxRetryWait, each wait
// shortened or lengthened at random by up to a quarter (jitter, so that
// deliverers do not retry in step); after MaxAttempts tries the delivery
// is dead. Roughly: 1s, 2s, 4s, 8s, 16s, 32s, 1m, 2m, 4m, 8.5m, 17m, 34m,
// then hourly: about 4 hours and a quarter from the first try to the last.
const (
	FirstRetry   = time.Second
	MaxRetryWait = time.Hour
	MaxAttempts  = 16
)

// RetryWait is how long to wait after the attempts-th failed try, before
// jitter.
func RetryWait(attempts int) time.Duration {
	if attempts < 1 {
		attempts = 1
	}
	w := FirstRetry
	for i := 1; i < attempts && w < MaxRetryWait; i++ {
		w *= 2
	}
	return min(w, MaxRetryWait)
}

// jitter spreads w by up to a quarter either way.
func jitter(w time.Duration) time.Duration {
	q := int64(w / 4)
	if q <= 0 {
		return w
	}
	return w - time.Duration(q) + time.Duration(rand.Int64N(2*q+1))
}

// MaxRetryAfter is the longest a receiver's Retry-After is waited: a
// longer one is cut to it.
const MaxRetryAfter = time.Hour

// RetryAfter reads the Retry-After header of a 429 or 503 answered at
// now — seconds, or an HTTP date — as a wait, at most MaxRetryAfter; 0
// when there is none, or it is not one of the two, or already past.
func RetryAfter(value string, now time.Time) time.Duration {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0
	}
	var wait time.Duration
	if secs, err := strconv.ParseInt(value, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		if secs > int64(MaxRetryAfter/time.Second) {
			return MaxRetryAfter
		}
		wait = time.Duration(secs) * time.Second
	} else if at, err := http.ParseTime(value); err == nil {
		wait = at.Sub(now)
	}
	return min(max(wait, 0), MaxRetryAfter)
}

// nextWait is the wait after the attempts-th failed try: the schedule's,
// with jitter, or the receiver's Retry-After if that is longer. A
// Retry-After never brings a try earlier than the schedule would.
func nextWait(attempts int, retryAfter time.Duration) time.Duration {
	return max(jitter(RetryWait(attempts)), retryAfter)
}

// retryable reports whether a try answered with status is tried again:
// a 5xx, 408 (timeout) or 429 (too many requests). Any other answer that
// is not a 2xx — a 3xx (redirects are not followed) or a 4xx — is given
// up at once: trying again would be refused again.
func retryable(status int) bool {
	return status >= 500 || status == http.StatusRequestTimeout || status == http.StatusTooManyRequests
}
