package campaign

import "slices"

// Reach items are the inputs a suite's generators must reach besides the
// race table's orders: a list read past its first page, a tool result
// without text, a compaction entry on the branch. Each names the
// (row, order) its runs report in Outcome.RaceOrders, so the campaign
// counts it as it counts race orders; the report says, per item, how many
// runs reached it. A suite lists them by implementing ReachSuite.

// ReachItem is one input the generators must reach.
type ReachItem struct {
	Row, Order string // as the runs report it in Outcome.RaceOrders
	Name       string // what a person reads in the report
}

// ReachSuite is a Suite with a reach registry.
type ReachSuite interface {
	ReachItems() []ReachItem
}

// ReachCount is one reach item of a report: the runs that reached it.
type ReachCount struct {
	Row     string `json:"row"`
	Order   string `json:"order"`
	Name    string `json:"name"`
	Runs    int    `json:"runs"`
	Reached bool   `json:"reached"`
}

// reachItems is the suite's reach registry (nil for a suite without one).
func reachItems(s Suite) []ReachItem {
	if rs, ok := s.(ReachSuite); ok {
		return rs.ReachItems()
	}
	return nil
}

// reachCounts counts each item's runs in orders (row -> order -> runs).
func reachCounts(items []ReachItem, orders map[string]map[string]int) []ReachCount {
	out := make([]ReachCount, 0, len(items))
	for _, it := range items {
		n := orders[it.Row][it.Order]
		out = append(out, ReachCount{Row: it.Row, Order: it.Order, Name: it.Name, Runs: n, Reached: n > 0})
	}
	return out
}

// mergeReach adds the counts of items into m.Reach.
func mergeReach(m *Report, items []ReachCount) {
	for _, it := range items {
		i := slices.IndexFunc(m.Reach, func(x ReachCount) bool { return x.Row == it.Row && x.Order == it.Order })
		if i < 0 {
			m.Reach = append(m.Reach, ReachCount{Row: it.Row, Order: it.Order, Name: it.Name})
			i = len(m.Reach) - 1
		}
		m.Reach[i].Runs += it.Runs
		m.Reach[i].Reached = m.Reach[i].Runs > 0
	}
}
