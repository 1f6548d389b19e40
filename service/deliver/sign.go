// Package deliver sends a field's deliveries to their hooks: every notice
// to an agent or person with a hook goes to its URL, signed as the
// Standard Webhooks specification says (format standard) or as a Slack
// incoming-webhook message (format slack), at least once, retried with
// exponential backoff and jitter, and given up into the dead state after
// MaxAttempts tries (docs/notifications.md).
//
// Run runs a deliverer until its context ends; Once sends what is due and
// returns. Several deliverers, in one process or many, may run on one
// field: each delivery is claimed in the field before it is sent, so no
// two send it at once.
package deliver

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix begins every signing secret.
const SecretPrefix = "whsec_"

// NewSecret returns a fresh signing secret: whsec_ and 32 random bytes in
// base64.
func NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// secretKey is the HMAC key of a secret: the base64 after whsec_.
func secretKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || len(key) == 0 {
		return nil, fmt.Errorf("the hook's secret is not whsec_ and base64")
	}
	return key, nil
}

// Sign returns the webhook-signature header of body sent as message id at
// ts: "v1," and the base64 HMAC-SHA256, keyed by the secret, of
// "id.timestamp.body" (the Unix seconds of ts).
func Sign(secret, id string, ts time.Time, body []byte) (string, error) {
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(ts.Unix(), 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}
