package compute

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/hyperpod"
	"github.com/instantstart/instantstart/engine/store"
)

// The nodes of a cluster are listed by group name and launch time, not in
// the order of their ids. The node-order index keeps that order in Badger:
// one entry per node, <cluster id>/<position> -> node id, written in the
// transaction that writes the node. A page of nodes walks the index from
// its cursor, so it reads its own nodes and no others.
const (
	nodeOrderIndex = "node-order"
	// nodeOrderBuilt marks a store whose node-order index holds every node
	// (stores written before the index existed have nodes without it).
	metaIndex      = "compute-meta"
	nodeOrderBuilt = "node-order-v1"
	// maxNodeCursor bounds a cursor before it is decoded: a position is a
	// group name, a ULID, a timestamp and an instance id, far below it.
	maxNodeCursor = 512
)

// nodePosition is where n sorts among its cluster's nodes: group name, then
// group id (a group's nodes stay together), launch time (unknown last), then
// instance id. "!" separates the parts because it sorts below every
// character of a name, so "a" sorts before "a-b" as the names do.
func nodePosition(n *Node) string {
	launch := "~"
	if n.LaunchTime != nil {
		launch = n.LaunchTime.UTC().Format("20060102T150405.000000000Z")
	}
	return groupPosition(n.GroupName, n.GroupID) + launch + "!" + n.ID
}

// groupPosition is the start of the positions of one group's nodes.
func groupPosition(name, id string) string { return name + "!" + id + "!" }

func nodeOrderKey(n *Node) string { return n.ClusterID + "/" + nodePosition(n) }

// NodeCursor is the cursor of n in a nodes connection: its position,
// encoded so that clients do not read meaning into it.
func NodeCursor(n *Node) string {
	return base64.RawURLEncoding.EncodeToString([]byte(nodePosition(n)))
}

// nodeCursorPosition decodes a cursor NodeCursor made.
func nodeCursorPosition(cursor string) (string, error) {
	bad := errs.Field("after", "after is not a cursor of the nodes list: pass pageInfo.endCursor of the previous page, or omit it to start from the first node")
	if len(cursor) > maxNodeCursor {
		return "", bad
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || strings.Count(string(raw), "!") != 3 {
		return "", bad
	}
	return string(raw), nil
}

// putNode stores n, whose stored record was old (nil when new), and moves
// its index entry when its position changed.
func putNode(tx *store.Tx, old, n *Node) error {
	if old != nil && nodeOrderKey(old) != nodeOrderKey(n) {
		if err := tx.DeleteIndex(nodeOrderIndex, nodeOrderKey(old)); err != nil {
			return err
		}
	}
	if err := tx.Put(NodeKind, n.ID, n); err != nil {
		return err
	}
	return tx.PutIndex(nodeOrderIndex, nodeOrderKey(n), n.ID)
}

// deleteNode removes n and its index entry.
func deleteNode(tx *store.Tx, n *Node) error {
	if err := tx.DeleteIndex(nodeOrderIndex, nodeOrderKey(n)); err != nil {
		return err
	}
	return tx.Delete(NodeKind, n.ID)
}

// eachNode calls fn with the nodes of a cluster whose positions start with
// within ("" = all of them), in order, until fn returns false or an error.
func eachNode(tx *store.Tx, clusterID, within string, fn func(*Node) (bool, error)) error {
	return tx.ScanIndex(nodeOrderIndex, clusterID+"/"+within, func(_, id string) (bool, error) {
		var n Node
		err := tx.Get(NodeKind, id, &n)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return true, nil
		case err != nil:
			return false, err
		}
		return fn(&n)
	})
}

// NodesPage returns one page of the nodes of a cluster (of one of its groups
// when groupID is set) by group name and launch time. req.After is a
// NodeCursor; the page starts past that position whether or not its node is
// still there.
func (s *Service) NodesPage(clusterID, groupID string, req store.PageRequest) (*store.Page[Node], error) {
	after := ""
	if req.After != "" {
		var err error
		if after, err = nodeCursorPosition(req.After); err != nil {
			return nil, err
		}
	}
	var page *store.Page[Node]
	err := s.store.View(func(tx *store.Tx) error {
		within := ""
		if groupID != "" {
			var g hyperpod.InstanceGroup
			err := tx.Get(GroupKind, groupID, &g)
			if errors.Is(err, store.ErrNotFound) || err == nil && g.ClusterID != clusterID {
				page = &store.Page[Node]{}
				return nil // no group of this cluster: none of its nodes
			}
			if err != nil {
				return err
			}
			within = groupPosition(g.Name, g.ID)
			switch {
			case strings.HasPrefix(after, within):
				after = after[len(within):]
			case after != "" && after > within:
				// The cursor is past the group: nothing of it follows.
				if req.Count {
					counted, err := store.ReadPage[Node](tx, nodeScan(clusterID, within), store.PageRequest{First: 1, Count: true}, nil)
					if err != nil {
						return err
					}
					page = &store.Page[Node]{Total: counted.Total, Decoded: counted.Decoded}
				} else {
					page = &store.Page[Node]{}
				}
				return nil
			default:
				after = "" // the cursor is before the group: from its start
			}
		}
		req.After = after
		var err error
		page, err = store.ReadPage[Node](tx, nodeScan(clusterID, within), req, nil)
		return err
	})
	return page, err
}

func nodeScan(clusterID, within string) store.Scan {
	return store.Scan{Kind: NodeKind, Index: nodeOrderIndex, Prefix: clusterID + "/" + within}
}

// indexNodes builds the node-order index of a store written before it
// existed, once: every node record gets its entry. It writes in batches, as
// one Badger transaction holds a bounded number of writes.
func (s *Service) indexNodes() error {
	const batch = 1000
	err := s.store.View(func(tx *store.Tx) error {
		_, err := tx.GetIndex(metaIndex, nodeOrderBuilt)
		return err
	})
	if !errors.Is(err, store.ErrNotFound) {
		return err // built (nil), or the store failed
	}
	after := ""
	for {
		var nodes []*Node
		err := s.store.View(func(tx *store.Tx) error {
			return tx.List(NodeKind, after, func(id string, raw []byte) (bool, error) {
				var n Node
				if err := json.Unmarshal(raw, &n); err != nil {
					return false, errs.Wrap(errs.Internal, err, "index the stored nodes: node %s: %v", id, err)
				}
				nodes = append(nodes, &n)
				return len(nodes) < batch, nil
			})
		})
		if err != nil {
			return err
		}
		err = s.store.Update(func(tx *store.Tx) error {
			for _, n := range nodes {
				if err := tx.PutIndex(nodeOrderIndex, nodeOrderKey(n), n.ID); err != nil {
					return err
				}
			}
			if len(nodes) < batch {
				return tx.PutIndex(metaIndex, nodeOrderBuilt, "")
			}
			return nil
		})
		if err != nil || len(nodes) < batch {
			return err
		}
		after = nodes[len(nodes)-1].ID
	}
}
