package ptxsim

import (
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/gree-ml/gree/go/status"
)

// Module is a loaded PTX module: every entry decoded and validated.
type Module struct {
	entries  []*entry
	byName   map[string]*entry
	executed atomic.Int64

	// MaxStepsPerThread bounds the backward branches (loop iterations)
	// one thread may take in a launch, a guard against kernels that never
	// terminate; zero means DefaultMaxStepsPerThread.
	MaxStepsPerThread int64
}

// DefaultMaxStepsPerThread is the step bound used when
// Module.MaxStepsPerThread is zero.
const DefaultMaxStepsPerThread = 1 << 28

// Special register kinds.
const (
	spTidX uint8 = iota
	spTidY
	spTidZ
	spNtidX
	spNtidY
	spNtidZ
	spCtaidX
	spCtaidY
	spCtaidZ
	spNctaidX
	spNctaidY
	spNctaidZ
	spLaneid
	spWarpid
	spNwarpid
	spWarpSize
)

var specialByName = map[string]uint8{
	"%tid.x": spTidX, "%tid.y": spTidY, "%tid.z": spTidZ,
	"%ntid.x": spNtidX, "%ntid.y": spNtidY, "%ntid.z": spNtidZ,
	"%ctaid.x": spCtaidX, "%ctaid.y": spCtaidY, "%ctaid.z": spCtaidZ,
	"%nctaid.x": spNctaidX, "%nctaid.y": spNctaidY, "%nctaid.z": spNctaidZ,
	"%laneid": spLaneid, "%warpid": spWarpid, "%nwarpid": spNwarpid, "WARP_SZ": spWarpSize,
}

type special struct {
	slot int32
	kind uint8
}

// entry is one decoded .entry.
type entry struct {
	name       string
	code       []inst
	nregs      int
	template   []uint64 // initial register file: constants; params filled at launch
	params     []int32  // register slot of each parameter
	specials   []special
	sharedSize int
}

type regInfo struct {
	idx  int32
	bits uint8
}

type decoder struct {
	e        *entry
	regs     map[string]regInfo
	labels   map[string]int32
	shared   map[string]int64
	params   map[string]int32
	consts   map[uint64]int32
	specials map[string]int32
	relaxed  bool // operand checks allow wider integer registers (ld/st data, cvt)
}

// Load parses and validates a PTX module.
func Load(ptx string) (m *Module, err error) {
	if m := cachedLoad(ptx); m != nil {
		return m, nil
	}
	defer func() {
		if p := recover(); p != nil {
			m, err = nil, status.FromPanic(p, "ptxsim.Load")
		}
	}()
	ast, err := parse(ptx)
	if err != nil {
		return nil, err
	}
	m = &Module{byName: map[string]*entry{}}
	for _, ea := range ast.entries {
		if _, dup := m.byName[ea.name]; dup {
			return nil, status.Errorf(status.InvalidArgument, "line %d: duplicate entry %s", ea.line, ea.name)
		}
		e, err := decodeEntry(ast.shared, ea)
		if err != nil {
			return nil, err
		}
		m.entries = append(m.entries, e)
		m.byName[e.name] = e
	}
	rememberLoad(ptx, m)
	return m, nil
}

// Entries returns the names of the module's entries in source order.
func (m *Module) Entries() []string {
	names := make([]string, len(m.entries))
	for i, e := range m.entries {
		names[i] = e.name
	}
	return names
}

func errAt(line int, format string, args ...any) error {
	return status.Errorf(status.InvalidArgument, "line %d: "+format, append([]any{line}, args...)...)
}

func decodeEntry(modShared []varDecl, ea *entryAST) (*entry, error) {
	e := &entry{name: ea.name, code: make([]inst, 0, len(ea.body)+1)}
	nregs := 0
	for _, r := range ea.regs {
		nregs += max(r.count, 1)
	}
	d := &decoder{e: e, regs: make(map[string]regInfo, nregs), labels: map[string]int32{}, shared: map[string]int64{},
		params: map[string]int32{}, consts: map[uint64]int32{}, specials: map[string]int32{}}
	e.template = make([]uint64, 1, 1+len(ea.params)+nregs+32) // slot 0: the sink register "_"
	for _, pn := range ea.params {
		if _, dup := d.params[pn]; dup {
			return nil, errAt(ea.line, "duplicate parameter %s", pn)
		}
		slot := d.newSlot(0)
		d.params[pn] = slot
		e.params = append(e.params, slot)
	}
	for _, r := range ea.regs {
		t, ok := typeByName[r.typ]
		if !ok {
			return nil, errAt(r.line, "bad register type %q", r.typ)
		}
		add := func(name string) error {
			if _, dup := d.regs[name]; dup {
				return errAt(r.line, "register %s declared twice", name)
			}
			d.regs[name] = regInfo{idx: d.newSlot(0), bits: uint8(t.bits())}
			return nil
		}
		if r.count < 0 {
			if err := add(r.name); err != nil {
				return nil, err
			}
			continue
		}
		for i := 0; i < r.count; i++ {
			if err := add(r.name + strconv.Itoa(i)); err != nil {
				return nil, err
			}
		}
	}
	off := int64(0)
	for _, v := range append(append([]varDecl{}, modShared...), ea.shared...) {
		if _, dup := d.shared[v.name]; dup {
			return nil, errAt(v.line, "shared variable %s declared twice", v.name)
		}
		al := int64(v.align)
		if al == 0 {
			al = int64(typeSize[v.typ])
		}
		off = (off + al - 1) &^ (al - 1)
		d.shared[v.name] = off
		off += int64(typeSize[v.typ] * v.n)
	}
	e.sharedSize = int(off)
	for _, s := range ea.body {
		if s.label != "" {
			if _, dup := d.labels[s.label]; dup {
				return nil, errAt(s.line, "label %s defined twice", s.label)
			}
			d.labels[s.label] = -1
		}
	}
	pc := int32(0)
	for _, s := range ea.body {
		if s.label != "" {
			d.labels[s.label] = pc
		} else {
			pc++
		}
	}
	for _, s := range ea.body {
		if s.label != "" {
			continue
		}
		in, err := d.decode(s)
		if err != nil {
			return nil, err
		}
		e.code = append(e.code, in)
	}
	// Falling off the end of the entry exits.
	e.code = append(e.code, inst{op: opExit, guard: -1, line: int32(ea.line)})
	e.nregs = len(e.template)
	sort.Slice(e.specials, func(i, j int) bool { return e.specials[i].slot < e.specials[j].slot })
	return e, nil
}

func (d *decoder) newSlot(v uint64) int32 {
	d.e.template = append(d.e.template, v)
	return int32(len(d.e.template) - 1)
}

func (d *decoder) constSlot(v uint64) int32 {
	if s, ok := d.consts[v]; ok {
		return s
	}
	s := d.newSlot(v)
	d.consts[v] = s
	return s
}

// loadCache remembers the modules Load decoded most recently, keyed by
// their text: tests often load the same large module once for every entry
// they launch. Decoded entries are immutable, so Modules share them; each
// Load still returns its own Module (its MaxStepsPerThread and counters
// are its own).
var loadCache struct {
	sync.Mutex
	items []cachedModule // most recently used last
}

type cachedModule struct {
	text    string
	entries []*entry
	byName  map[string]*entry
}

// loadCacheSize bounds the modules kept.
const loadCacheSize = 4

func cachedLoad(ptx string) *Module {
	loadCache.Lock()
	defer loadCache.Unlock()
	items := loadCache.items
	for i := len(items) - 1; i >= 0; i-- {
		if c := items[i]; c.text == ptx {
			copy(items[i:], items[i+1:])
			items[len(items)-1] = c
			return &Module{entries: c.entries, byName: c.byName}
		}
	}
	return nil
}

func rememberLoad(ptx string, m *Module) {
	loadCache.Lock()
	defer loadCache.Unlock()
	if len(loadCache.items) == loadCacheSize {
		loadCache.items = append(loadCache.items[:0], loadCache.items[1:]...)
	}
	loadCache.items = append(loadCache.items, cachedModule{text: ptx, entries: m.entries, byName: m.byName})
}
