package pi

// AIRelease names a pi-ai release where frameproof's behaviour follows
// one: the retry and overflow patterns that classify a provider error
// (lane.Config.ErrorPatterns and model/lane's). The published
// pi-agent-core packages resolve older pi-ai releases than the tree's
// 1.0.3, with fewer patterns; running one of them as a subject, the lane
// and the model classify as that release does.
type AIRelease string

// The pi-ai releases frameproof knows: the tree's and those the pinned
// pi-agent-core peers resolve.
const (
	AI103  AIRelease = "1.0.3"  // the tree's pi-ai: the default
	AI0991 AIRelease = "0.99.1" // resolved by pi-agent-core 0.99.1
	AI0871 AIRelease = "0.87.1" // resolved by pi-agent-core 0.87.1
	AI0851 AIRelease = "0.85.1" // resolved by pi-agent-core 0.85.1
)

// AIReleases lists them, newest first.
var AIReleases = []AIRelease{AI103, AI0991, AI0871, AI0851}
