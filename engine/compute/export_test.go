package compute

// What the tests of package compute_test, which run on the whole engine
// (apptest, which cannot be imported from inside the package), use of the
// package's insides: the node-order index, which they write and empty by
// hand.

// PutNode stores n, whose stored record was old (nil when new), with its
// node-order entry, as the refresh does.
var PutNode = putNode

// DeleteNode removes n and its node-order entry.
var DeleteNode = deleteNode

// The node-order index, and the entry of the meta index that marks it
// built.
const (
	NodeOrderIndex = nodeOrderIndex
	MetaIndex      = metaIndex
	NodeOrderBuilt = nodeOrderBuilt
)

// IndexNodes builds the node-order index of a store written before it
// existed, as New does.
func (s *Service) IndexNodes() error { return s.indexNodes() }
