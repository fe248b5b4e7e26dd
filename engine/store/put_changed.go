package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// PutIfChanged stores rec as record id of kind when anything but its
// update time (the field stamp returns) differs from what is stored, and
// then stamps it with the transaction's time: a refresher that reads the
// same state again writes nothing and publishes no event.
func PutIfChanged[T any](tx *Tx, kind, id string, rec *T, stamp func(*T) *time.Time) error {
	var was T
	if err := tx.Get(kind, id, &was); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	*stamp(&was) = *stamp(rec)
	a, err := json.Marshal(&was)
	if err != nil {
		return fmt.Errorf("encode %s %s: %w", kind, id, err)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode %s %s: %w", kind, id, err)
	}
	if bytes.Equal(a, b) {
		return nil
	}
	*stamp(rec) = tx.Now()
	return tx.Put(kind, id, rec)
}
