package resolvers

import "github.com/instantstart/instantstart/engine/errs"

// given reads an optional Int argument for the engine, where 0 means "not
// given, take the default". A value sent is checked against its range
// first, so that an explicit 0 (or any value below least, or above most
// when most > 0) is refused on field rather than taken as absent: absent
// and 0 are different inputs.
func given(field string, v *int, least, most int) (int, error) {
	if v == nil {
		return 0, nil
	}
	if *v < least || (most > 0 && *v > most) {
		if most > 0 {
			return 0, errs.Field(field, "%s is %d; give %d to %d, or leave it out for the default", field, *v, least, most)
		}
		return 0, errs.Field(field, "%s is %d; give %d or more, or leave it out for the default", field, *v, least)
	}
	return *v, nil
}

// givenAbove is given for a Float argument that must be above 0.
func givenAbove(field string, v *float64) (float64, error) {
	if v == nil {
		return 0, nil
	}
	if !(*v > 0) {
		return 0, errs.Field(field, "%s is %v; give a value above 0, or leave it out for the default", field, *v)
	}
	return *v, nil
}
