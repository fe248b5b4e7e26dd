package store

import (
	"errors"

	"github.com/instantstart/instantstart/engine/errs"
)

// Missing says what a record is called and where a client finds the ids of
// its kind, for the NOT_FOUND error of a lookup that finds none.
type Missing struct {
	// Noun names the record in the message: "job".
	Noun string
	// List says where to find ids: "list the cluster's jobs".
	List string
}

// Lookup reads the record of kind with id. When there is none it returns a
// NOT_FOUND error on field (the request field that sent id) saying that
// the record does not exist and where to find its id.
func Lookup[T any](s *Store, kind, id, field string, missing Missing) (*T, error) {
	var rec T
	err := s.View(func(tx *Tx) error { return tx.Get(kind, id, &rec) })
	if errors.Is(err, ErrNotFound) {
		return nil, errs.New(errs.NotFound, "%s %q does not exist; %s to find its id", missing.Noun, errs.Clip(id), missing.List).WithField(field)
	}
	if err != nil {
		return nil, err
	}
	return &rec, nil
}

// Indexed reads the record of kind that index maps key to, in one
// transaction; nil when the index holds no key.
func Indexed[T any](s *Store, index, key, kind string) (*T, error) {
	var out *T
	err := s.View(func(tx *Tx) error {
		id, err := tx.GetIndex(index, key)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		var rec T
		if err := tx.Get(kind, id, &rec); err != nil {
			return err
		}
		out = &rec
		return nil
	})
	return out, err
}
