// Graphs for fake_libcuda_exec.h (included by it): stream capture records
// the work enqueued on a stream; a graph and its executable instances are
// the recorded list, replayed by cuGraphLaunch.
struct op {
  int kind;  // 0 copy, 1 set, 2 launch
  CUdeviceptr d, s;
  size_t n;
  unsigned value;
  int width;
  function* f;
  unsigned dims[7];
  unsigned long long params[64];
  int nparams;
};
typedef struct {
  op* ops;
  int nops;
} graph_t;

static long long live_graphs, live_graph_execs, graph_launches;
long long fake_live_graphs(void) { return live_graphs; }
long long fake_live_graph_execs(void) { return live_graph_execs; }
long long fake_graph_launches(void) { return graph_launches; }

static op* add_op(void* st) {
  stream_t* s = st;
  if (s->nops == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 16;
    s->ops = realloc(s->ops, sizeof(op) * (size_t)s->cap);
  }
  op* o = &s->ops[s->nops++];
  memset(o, 0, sizeof *o);
  return o;
}
static CUresult record_copy(void* st, CUdeviceptr d, CUdeviceptr s, size_t n) {
  op* o = add_op(st);
  o->kind = 0, o->d = d, o->s = s, o->n = n;
  return 0;
}
static CUresult record_set(void* st, CUdeviceptr d, unsigned v, int width, size_t n) {
  op* o = add_op(st);
  o->kind = 1, o->d = d, o->value = v, o->width = width, o->n = n;
  return 0;
}
static CUresult record_launch(void* st, function* f, const unsigned dims[7], const unsigned long long* params, int n) {
  op* o = add_op(st);
  o->kind = 2, o->f = f, o->nparams = n;
  memcpy(o->dims, dims, sizeof o->dims);
  memcpy(o->params, params, sizeof(params[0]) * n);
  return 0;
}

CUresult cuStreamBeginCapture_v2(void* st, int mode) {
  NEED_CONTEXT();
  stream_t* s = st;
  if (s == NULL || s->capturing || mode < 0 || mode > 2) return 1;
  s->capturing = 1;
  s->nops = 0;
  return 0;
}
CUresult cuStreamEndCapture(void* st, void** graph) {
  NEED_CONTEXT();
  stream_t* s = st;
  if (s == NULL || !s->capturing) return 1;
  graph_t* g = calloc(1, sizeof(graph_t));
  g->nops = s->nops;
  g->ops = malloc(sizeof(op) * (size_t)(s->nops + 1));
  memcpy(g->ops, s->ops, sizeof(op) * (size_t)s->nops);
  s->capturing = 0;
  s->nops = 0;
  __atomic_add_fetch(&live_graphs, 1, __ATOMIC_SEQ_CST);
  *graph = g;
  return 0;
}
CUresult cuGraphInstantiateWithFlags(void** exec, void* graph, unsigned long long flags) {
  NEED_CONTEXT();
  graph_t* g = graph;
  graph_t* e = calloc(1, sizeof(graph_t));
  e->nops = g->nops;
  e->ops = malloc(sizeof(op) * (size_t)(g->nops + 1));
  memcpy(e->ops, g->ops, sizeof(op) * (size_t)g->nops);
  __atomic_add_fetch(&live_graph_execs, 1, __ATOMIC_SEQ_CST);
  *exec = e;
  return 0;
}
static void free_graph(graph_t* g) {
  free(g->ops);
  free(g);
}
CUresult cuGraphDestroy(void* graph) {
  NEED_CONTEXT();
  free_graph(graph);
  __atomic_sub_fetch(&live_graphs, 1, __ATOMIC_SEQ_CST);
  return 0;
}
CUresult cuGraphExecDestroy(void* exec) {
  NEED_CONTEXT();
  free_graph(exec);
  __atomic_sub_fetch(&live_graph_execs, 1, __ATOMIC_SEQ_CST);
  return 0;
}
CUresult cuGraphLaunch(void* exec, void* st) {
  NEED_CONTEXT();
  if (capturing(st)) return 900;
  graph_t* e = exec;
  graph_launches++;
  for (int i = 0; i < e->nops; i++) {
    op* o = &e->ops[i];
    CUresult r = 0;
    switch (o->kind) {
      case 0: memmove(PTR(o->d), PTR(o->s), o->n); break;
      case 1: set(o->d, o->value, o->width, o->n); break;
      case 2: r = launch(o->f, o->dims, o->params, o->nparams); break;
    }
    if (r != 0) return r;
  }
  return 0;
}
