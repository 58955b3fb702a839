"""The request and response bodies of the routes the client covers, generated from the
server's /openapi.json by tools/generate_models.py. Do not edit: rerun the generator."""

from __future__ import annotations

from typing import Any, Literal, TypedDict

__all__ = [
    'WorkspaceInfo',
    'RecordRow',
    'WriteResponse',
    'RecordsQuery',
    'RecordsPage',
    'StoredRecord',
    'TimelineQuery',
    'TimelinePage',
    'DocumentQuery',
    'EngramDocument',
    'HistoryQuery',
    'HistoryPage',
    'EntitiesQuery',
    'EntitiesPage',
    'DeltaQuery',
    'DeltaPage',
    'CursorRequest',
    'CursorResponse',
    'SearchSpec',
    'SearchResponse',
    'ViewList',
    'ViewResponse',
    'RenderResponse',
    'AnswerRequest',
    'AnswerResponse',
    'ContextQuery',
    'ContextResponse',
    'EraseRequest',
    'EraseResponse',
    'ToolsResponse',
    'CatalogInfo',
    'PublishRequest',
    'PublishResponse',
    'RunQueued',
    'RunsQuery',
    'RunsPage',
    'Run',
    'JobsQuery',
    'JobsPage',
    'Job',
    'KeyList',
    'KeyRequest',
    'CreatedKey',
    'PromoteRequest',
    'PromoteResponse',
]


class WorkspaceInfoCountsJobs(TypedDict):
    queued: int
    running: int
    succeeded: int
    dead: int
    cancelled: int


class WorkspaceInfoCounts(TypedDict):
    records: int
    entities: int
    unready: int
    jobs: WorkspaceInfoCountsJobs


class WorkspaceInfoKey(TypedDict):
    id: str
    name: str
    scope: Literal['admin', 'read_write', 'read_only']
    expires_at: str | None


class WorkspaceInfoLimits(TypedDict):
    max_batch_records: int
    max_body_bytes: int


class WorkspaceInfo(TypedDict):
    """GET /workspace."""
    id: str
    name: str
    created_at: str
    counts: WorkspaceInfoCounts
    oldest_unready_at: str | None
    key: WorkspaceInfoKey
    limits: WorkspaceInfoLimits


class _RecordRowRequired(TypedDict):
    collection: str
    entity: str
    type: str


class RecordRow(_RecordRowRequired, total=False):
    """POST /records (body.records[])."""
    text: str
    content: dict[str, Any]
    occurred_at: str
    dedupe_key: str
    key: str | None
    status: Literal['active', 'draft']
    tombstone: bool
    derived_from: list[str]
    scores: dict[str, float]
    annotations: dict[str, Any]


class WriteResponseInserted(TypedDict):
    index: int
    id: str
    ready: bool


class WriteResponseDuplicate(TypedDict):
    index: int
    id: str


class WriteResponse(TypedDict):
    """POST /records."""
    inserted: list[WriteResponseInserted]
    duplicates: list[WriteResponseDuplicate]
    job_id: str | None


class RecordsQuery(TypedDict, total=False):
    """GET /records (query)."""
    collection: str
    type: str
    status: Literal['active', 'draft', 'all']
    created_after: str
    created_before: str
    limit: int


class _RecordsPageRecordRequired(TypedDict):
    id: str
    seq: int
    collection: str
    key: str | None
    type: str
    status: str
    ready: bool
    tombstone: bool
    text: str
    entity: str


class RecordsPageRecord(_RecordsPageRecordRequired, total=False):
    occurred_at: str
    created_at: str


class RecordsPage(TypedDict):
    """GET /records."""
    records: list[RecordsPageRecord]
    next_before: str | None


class StoredRecord(TypedDict):
    """GET /records/{id}."""
    id: str
    seq: int
    collection: str
    collection_version: int
    collection_hash: str
    entity: str
    type: str
    key: str | None
    status: Literal['active', 'draft']
    ready: bool
    tombstone: bool
    text: str
    content: dict[str, Any]
    scores: dict[str, Any]
    annotations: dict[str, Any]
    citations: list[str]
    derived_from: list[str]
    depth: int
    run_id: str | None
    occurred_at: str
    created_at: str


class TimelineQuery(TypedDict, total=False):
    """GET /timeline (query)."""
    entity: str
    collections: list[str]
    types: list[str]
    status: Literal['active', 'draft', 'all']
    include_system: bool
    limit: int
    as_of: str


class _TimelinePageRecordRequired(TypedDict):
    id: str
    seq: int
    collection: str
    key: str | None
    type: str
    status: str
    ready: bool
    tombstone: bool
    text: str


class TimelinePageRecord(_TimelinePageRecordRequired, total=False):
    occurred_at: str
    created_at: str


class TimelinePage(TypedDict):
    """GET /timeline."""
    records: list[TimelinePageRecord]
    next_before_seq: int | None
    truncated: bool


class _DocumentQueryRequired(TypedDict):
    entity: str


class DocumentQuery(_DocumentQueryRequired, total=False):
    """GET /document (query)."""
    collections: list[str]
    status: Literal['active', 'draft']
    as_of: str


class EngramDocumentBelief(TypedDict):
    collection: str
    collection_version: int
    key: str
    type: str
    text: str
    id: str
    citations: list[str]
    status: str
    ready: bool
    occurred_at: str
    created_at: str


class EngramDocumentRetraction(TypedDict):
    collection: str
    key: str
    id: str
    seq: int


class EngramDocumentFreshnessJob2(TypedDict):
    id: str
    state: Literal['queued', 'running']


class EngramDocumentFreshness(TypedDict):
    derivation: str
    watermark_seq: int
    dirty: bool
    unready: int
    job: None | EngramDocumentFreshnessJob2


class EngramDocument(TypedDict):
    """GET /document."""
    entity: str
    status: str
    beliefs: list[EngramDocumentBelief]
    retractions: list[EngramDocumentRetraction]
    freshness: list[EngramDocumentFreshness]


class _HistoryQueryRequired(TypedDict):
    entity: str
    collection: str
    key: str


class HistoryQuery(_HistoryQueryRequired, total=False):
    """GET /document/history (query)."""
    limit: int


class HistoryPageVersion(TypedDict):
    id: str
    seq: int
    collection: str
    collection_version: int
    collection_hash: str
    key: str
    type: str
    status: str
    text: str
    content: dict[str, Any]
    tombstone: bool
    ready: bool
    run_id: str | None
    citations: list[str]
    depth: int
    occurred_at: str
    created_at: str
    superseded_at: str | None


class HistoryPage(TypedDict):
    """GET /document/history."""
    versions: list[HistoryPageVersion]
    next_before_seq: int | None
    truncated: bool


class EntitiesQuery(TypedDict, total=False):
    """GET /entities (query)."""
    prefix: str
    limit: int


class EntitiesPageEntity(TypedDict):
    entity: str
    records: int
    last_seq: int
    last_at: str


class EntitiesPage(TypedDict):
    """GET /entities."""
    entities: list[EntitiesPageEntity]
    next_after: str | None


class DeltaQuery(TypedDict, total=False):
    """GET /delta (query)."""
    entity: str
    collection: str
    status: Literal['active', 'draft', 'all']
    include_system: bool
    limit: int


class DeltaPage(TypedDict):
    """GET /delta."""
    records: list[TimelinePageRecord]
    next_cursor: int
    scope_hash: str


class _CursorRequestRequired(TypedDict):
    consumer: str
    position: int
    scope_hash: str


class CursorRequest(_CursorRequestRequired, total=False):
    """POST /cursor (body)."""
    entity: str | None
    force: bool


class CursorResponse(TypedDict):
    """POST /cursor."""
    consumer: str
    entity: str | None
    position: int
    scope_hash: str
    updated_at: str


class SearchSpecScope(TypedDict, total=False):
    collections: list[str]
    collection_versions: dict[str, list[int]]
    entities: list[str]
    types: list[str]
    status: Literal['active', 'draft', 'all']
    keyed: Literal[True, False, 'any']
    versions: Literal['current', 'all']
    occurred_after: str
    occurred_before: str
    depth_lte: int


_SearchSpecWhereValueOptional = TypedDict('_SearchSpecWhereValueOptional', {'eq': Any, 'in': list[Any], 'gt': float | str, 'gte': float | str, 'lt': float | str, 'lte': float | str, 'exists': bool, 'contains_any': list[str], 'contains_all': list[str]}, total=False)


class SearchSpecWhereValue(_SearchSpecWhereValueOptional):
    pass


class _SearchSpecOrderByRequired(TypedDict):
    field: str


class SearchSpecOrderBy(_SearchSpecOrderByRequired, total=False):
    direction: Literal['asc', 'desc']


class SearchSpecParams(TypedDict, total=False):
    candidates: int


class SearchSpecFence(TypedDict, total=False):
    tag: str
    preamble: str


class _SearchSpecRerankRequired(TypedDict):
    model: str


class SearchSpecRerank(_SearchSpecRerankRequired, total=False):
    top_n: int


class _SearchSpecGraphBoostRequired(TypedDict):
    anchor: str


class SearchSpecGraphBoost(_SearchSpecGraphBoostRequired, total=False):
    graph: str
    depth: int
    weight: float


class _SearchSpecSourceRequired(TypedDict):
    name: str
    mode: Literal['vector', 'text', 'hybrid', 'recent', 'structured']


class SearchSpecSource(_SearchSpecSourceRequired, total=False):
    weight: float
    scope: SearchSpecScope
    where: dict[str, SearchSpecWhereValue]
    order_by: list[SearchSpecOrderBy]
    rank: list[Any]
    params: SearchSpecParams
    k: int


class _SearchSpecFuseRequired(TypedDict):
    kind: Literal['rrf']


class SearchSpecFuse(_SearchSpecFuseRequired, total=False):
    rank_constant: int


class SearchSpec(TypedDict, total=False):
    """POST /search (body)."""
    q: str
    mode: Literal['vector', 'text', 'hybrid', 'recent', 'structured']
    scope: SearchSpecScope
    where: dict[str, SearchSpecWhereValue]
    order_by: list[SearchSpecOrderBy]
    rank: list[Any]
    params: SearchSpecParams
    k: int
    include: list[Literal['text', 'scores', 'collection', 'collection_version', 'entity', 'type', 'key', 'status', 'depth', 'occurred_at', 'created_at', 'run_id']]
    fields: list[str]
    annotations: list[str]
    render: bool
    fence: SearchSpecFence
    rerank: SearchSpecRerank
    graph_boost: SearchSpecGraphBoost
    sources: list[SearchSpecSource]
    fuse: SearchSpecFuse
    boost: list[Any]
    explain: bool
    as_of: str


class SearchResponseHitExplainSignalsAgeHours(TypedDict):
    created_at: float
    occurred_at: float
    last_accessed: float


class SearchResponseHitExplainSignals(TypedDict):
    similarity: float | None
    text_match: float | None
    age_hours: SearchResponseHitExplainSignalsAgeHours
    scores: dict[str, float]


class _SearchResponseHitExplainRankRequired(TypedDict):
    value: float


class SearchResponseHitExplainRank(_SearchResponseHitExplainRankRequired, total=False):
    op: Literal['sum', 'max', 'product', 'normalize', 'saturate', 'decay', 'rrf', 'boost', 'graph_boost', 'rerank']
    signal: Literal['similarity', 'text_match', 'score', 'age_hours']
    const: float
    name: str
    field: str
    factor: float
    midpoint: float
    exponent: float
    min: float
    max: float
    rank_constant: int
    weight: float
    distance: int
    model: str
    judged: bool
    source: str
    source_rank: int
    rank: dict[str, Any]
    order_by: list[dict[str, Any]]
    args: list[dict[str, Any]]


class SearchResponseHitExplainOrderBy(TypedDict):
    field: str
    direction: Literal['asc', 'desc']
    value: Any


class _SearchResponseHitExplainRequired(TypedDict):
    signals: SearchResponseHitExplainSignals
    proposed_by: list[Literal['vector', 'text', 'recent', 'structured']]


class SearchResponseHitExplain(_SearchResponseHitExplainRequired, total=False):
    """only when asked for (explain: true): why the hit ranks where it does"""
    rank: SearchResponseHitExplainRank
    order_by: list[SearchResponseHitExplainOrderBy]
    source_ranks: dict[str, int]


class _SearchResponseHitRequired(TypedDict):
    id: str
    rank: int
    score: float | None


class SearchResponseHit(_SearchResponseHitRequired, total=False):
    rank_score: float
    source_ranks: dict[str, Any]
    explain: SearchResponseHitExplain


class _SearchResponseBackendRequired(TypedDict):
    name: str
    layout: str
    candidate_count: int


class SearchResponseBackend(_SearchResponseBackendRequired, total=False):
    source: str


class _SearchResponseRequired(TypedDict):
    hits: list[SearchResponseHit]
    ranking: dict[str, Any]
    rendered: str | None
    truncated: bool
    backend: list[SearchResponseBackend]
    profiles: list[str]


class SearchResponse(_SearchResponseRequired, total=False):
    """POST /search."""
    rerank: dict[str, Any]
    graph_boost: dict[str, Any]


class _ViewListViewParametersValueRequired(TypedDict):
    type: Literal['string', 'number', 'integer', 'boolean', 'datetime', 'string_array']
    required: bool


class ViewListViewParametersValue(_ViewListViewParametersValueRequired, total=False):
    default: str | float | bool | list[str]


class _ViewListViewInputSchemaPropertiesValueItemsRequired(TypedDict):
    type: Literal['string']


class ViewListViewInputSchemaPropertiesValueItems(_ViewListViewInputSchemaPropertiesValueItemsRequired, total=False):
    enum: list[str]


class _ViewListViewInputSchemaPropertiesValueRequired(TypedDict):
    type: Literal['string', 'number', 'integer', 'boolean', 'array']


class ViewListViewInputSchemaPropertiesValue(_ViewListViewInputSchemaPropertiesValueRequired, total=False):
    format: Literal['date-time']
    items: ViewListViewInputSchemaPropertiesValueItems
    description: str
    enum: list[str | float | bool | list[str]]
    minimum: float
    maximum: float
    minLength: int
    maxLength: int
    minItems: int
    maxItems: int
    default: str | float | bool | list[str]


class ViewListViewInputSchema(TypedDict):
    """JSON Schema 2020-12 of the parameters (the body of POST /views/{name}/query)"""
    type: Literal['object']
    properties: dict[str, ViewListViewInputSchemaPropertiesValue]
    additionalProperties: Literal[False]
    required: list[str]


class ViewListView(TypedDict):
    name: str
    version: int
    hash: str
    active: bool
    kind: Literal['search', 'graph', 'graph_orphans']
    parameters: dict[str, ViewListViewParametersValue]
    input_schema: ViewListViewInputSchema
    collections: list[str]
    required_capabilities: list[Literal['vector', 'text', 'recent', 'structured']]
    profiles: list[str]


class ViewList(TypedDict):
    """GET /views."""
    views: list[ViewListView]


class ViewResponse1View(TypedDict):
    name: str
    version: int
    hash: str


class ViewResponse1(TypedDict):
    hits: list[SearchResponseHit]
    ranking: dict[str, Any]
    rendered: str | None
    truncated: bool
    backend: list[SearchResponseBackend]
    profiles: list[str]
    view: ViewResponse1View
    parameters: dict[str, Any]
    input_record_ids: list[str]


class ViewResponse2Hit(TypedDict):
    id: str
    text: str
    subject: str
    object: str
    predicate: str | None
    content: dict[str, Any]


class ViewResponse2Path(TypedDict):
    nodes: list[str]
    edge_ids: list[str]
    depth: int


class ViewResponse2(TypedDict):
    view: ViewResponse1View
    parameters: dict[str, Any]
    input_record_ids: list[str]
    hits: list[ViewResponse2Hit]
    nodes: list[str]
    paths: list[ViewResponse2Path]
    citations: list[ViewResponse2Hit]
    truncated: bool
    profiles: list[str]
    backend: list[SearchResponseBackend]


class ViewResponse3Hit(TypedDict):
    id: str
    entity: str
    key: str | None
    text: str
    content: dict[str, Any]


class ViewResponse3(TypedDict):
    view: ViewResponse1View
    parameters: dict[str, Any]
    input_record_ids: list[str]
    hits: list[ViewResponse3Hit]
    orphans: list[ViewResponse3Hit]
    truncated: bool
    profiles: list[str]
    backend: list[SearchResponseBackend]


ViewResponse = ViewResponse1 | ViewResponse2 | ViewResponse3
"""POST /views/{name}/query."""


class RenderResponseManifestArtifact(TypedDict):
    name: str
    version: int
    definition_hash: str


class RenderResponseManifestPackage(TypedDict):
    name: str
    version: str
    hash: str


class RenderResponseManifestBlocksValue(TypedDict):
    record_ids: list[str]
    tokens: int
    truncated: bool


class RenderResponseManifestFreshness(TypedDict):
    entity: str
    derivation: str
    watermark_seq: int
    dirty: bool
    unready: int
    job: None | EngramDocumentFreshnessJob2


class RenderResponseManifest(TypedDict):
    artifact: RenderResponseManifestArtifact
    package: RenderResponseManifestPackage
    catalog_hash: str
    record_ids: list[str]
    blocks: dict[str, RenderResponseManifestBlocksValue]
    freshness: list[RenderResponseManifestFreshness]
    truncated: bool
    tokens: int


class RenderResponse(TypedDict):
    """POST /artifacts/{name}/render."""
    content: str
    manifest: RenderResponseManifest


class _AnswerRequestRequired(TypedDict):
    question: str


class AnswerRequest(_AnswerRequestRequired, total=False):
    """POST /answer (body)."""
    entities: list[str]
    rewrite: bool
    anchor: str
    graph: str
    since: str
    until: str
    save: bool


class AnswerResponseModelUsage(TypedDict):
    prompt_tokens: int
    completion_tokens: int
    calls: int
    estimated: bool


class AnswerResponse(TypedDict):
    """POST /answer."""
    answer: str
    retrieval_query: str
    citations: list[str]
    gaps: list[str]
    input_ids: list[str]
    model_usage: AnswerResponseModelUsage
    saved_id: None | str


class _ContextQueryRequired(TypedDict):
    entity: str


class ContextQuery(_ContextQueryRequired, total=False):
    """GET /context (query)."""
    task: str
    budget: int
    as_of: str
    fence_tag: str
    fence_preamble: str


class ContextResponseComponent(TypedDict):
    name: Literal['state', 'relevant', 'recent', 'delta']
    record_ids: list[str]
    tokens: int
    truncated: bool


class ContextResponse(TypedDict):
    """GET /context."""
    components: list[ContextResponseComponent]
    input_record_ids: list[str]
    rendered: str
    tokens: int
    truncated: bool


class EraseRequest(TypedDict, total=False):
    """POST /erase (body)."""
    entity: str
    records: list[str]


class EraseResponse1(TypedDict):
    audit_id: str
    deleted: int
    affected_entities: int
    index_delete_job_id: str


class EraseResponse2(TypedDict):
    dry_run: Literal[True]
    deleted: int
    affected_entities: int
    by_collection: dict[str, int]
    derived: int


class EraseResponse3DerivedRecord(TypedDict):
    id: str
    entity: str
    collection: str
    key: str | None
    type: str
    text: str


class EraseResponse3(TypedDict):
    dry_run: Literal[True]
    deleted: int
    affected_entities: int
    by_collection: dict[str, int]
    derived: int
    derived_records: list[EraseResponse3DerivedRecord]
    derived_records_truncated: bool


EraseResponse = EraseResponse1 | EraseResponse2 | EraseResponse3
"""POST /erase."""


class ToolsResponseToolBinding(TypedDict):
    kind: str
    reference: str | None
    hash: str | None


class ToolsResponseToolAnnotations(TypedDict):
    readOnlyHint: bool
    destructiveHint: bool
    idempotentHint: bool
    openWorldHint: bool


class ToolsResponseTool(TypedDict):
    name: str
    kind: Literal['view', 'artifact', 'answer', 'record', 'ingest', 'retract']
    title: str | None
    description: str
    binding: ToolsResponseToolBinding
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    annotations: ToolsResponseToolAnnotations


class ToolsResponse(TypedDict):
    """GET /tools."""
    protocol: Literal['engram.mcp/v1']
    package: RenderResponseManifestPackage
    interface: None | ViewResponse1View
    catalog_hash: str
    tools: list[ToolsResponseTool]


class CatalogInfoMetadata(TypedDict):
    installed_at: str
    definitions: dict[str, str]
    counts: dict[str, int]


class CatalogInfo(TypedDict):
    """GET /catalog."""
    package: str
    catalog_hash: str
    metadata: CatalogInfoMetadata


class PublishRequest(TypedDict):
    """POST /catalog (body)."""
    package: str
    files: dict[str, str]


class PublishResponse1(TypedDict):
    workspace: str
    package: str
    catalog_hash: str
    files: dict[str, str]
    loaded: Literal[True]
    rewritten_records: int
    warnings: list[str]


class PublishResponse2DiffChanged(TypedDict):
    id: str
    before: Any
    after: Any


_PublishResponse2DiffRequired = TypedDict('_PublishResponse2DiffRequired', {'from': str | None, 'to': str, 'added': list[str], 'removed': list[str], 'changed': list[PublishResponse2DiffChanged]})


class PublishResponse2Diff(_PublishResponse2DiffRequired):
    """with diff=true: the definitions the publish adds, drops and changes"""


class _PublishResponse2Required(TypedDict):
    verdict: Literal['invisible', 'additive', 'reinterpreting']
    publishable: bool
    blockers: list[dict[str, Any]]


class PublishResponse2(_PublishResponse2Required, total=False):
    changes: list[dict[str, Any]]
    warnings: list[str]
    diff: PublishResponse2Diff


PublishResponse = PublishResponse1 | PublishResponse2
"""POST /catalog."""


class RunQueued(TypedDict):
    """POST /processors/{name}/run."""
    job_id: str
    enqueued: bool
    coalesced: bool
    run_after: str


class RunsQuery(TypedDict, total=False):
    """GET /runs (query)."""
    entity: str
    processor: str
    operation: Literal['derive', 'promote']
    source: Literal['changes', 'snapshot']
    status: Literal['running', 'succeeded', 'failed', 'skipped']
    limit: int


class RunsPageRun(TypedDict):
    id: str
    seq: int
    operation: Literal['derive', 'promote']
    processor: str
    derivation: str
    entity: str
    source_kind: Literal['changes', 'snapshot', None]
    status: Literal['running', 'succeeded', 'failed', 'skipped']
    failure: Literal['limits', 'source_too_large', 'model_unavailable', 'model_output', 'emission', 'cancelled', 'internal', None]
    job_id: str | None
    source_run_id: str | None
    output_count: int
    started_at: str
    finished_at: str | None


class RunsPagePaused(TypedDict):
    derivation: str
    failed_runs: int
    since: str
    last_failure: Literal['limits', 'source_too_large', 'model_unavailable', 'model_output', 'emission', 'cancelled', 'internal', None]


class RunsPage(TypedDict):
    """GET /runs."""
    runs: list[RunsPageRun]
    next_before_seq: int | None
    paused: list[RunsPagePaused]


class RunModelUsage(TypedDict):
    calls: int
    prompt_tokens: int
    completion_tokens: int


class RunContentTriggerReason(TypedDict):
    on: str
    trigger: str | None


class RunContentCandidateSetDivergence(TypedDict):
    key: str
    change: Literal['added', 'changed', 'removed', 'unchanged']


class RunContentCandidateSet(TypedDict):
    covered_keys: list[str]
    divergence: list[RunContentCandidateSetDivergence]


class RunContent(TypedDict):
    trigger_reasons: list[RunContentTriggerReason]
    candidate_set: RunContentCandidateSet


class RunExpectedActiveHead(TypedDict):
    collection: str
    key: str
    record_id: str | None


class RunKeyedDivergence(TypedDict):
    key: str
    expected_record_id: str | None
    actual_record_id: str | None


class RunRecord(TypedDict):
    id: str
    seq: int
    collection: str
    key: str | None
    type: str
    status: Literal['active', 'draft']
    ready: bool
    tombstone: bool
    text: str
    citations: list[str]
    depth: int
    occurred_at: str
    created_at: str


class Run(TypedDict):
    """GET /runs/{id}."""
    id: str
    seq: int
    operation: Literal['derive', 'promote']
    processor: str
    derivation: str
    entity: str
    source_kind: Literal['changes', 'snapshot', None]
    status: Literal['running', 'succeeded', 'failed', 'skipped']
    failure: Literal['limits', 'source_too_large', 'model_unavailable', 'model_output', 'emission', 'cancelled', 'internal', None]
    job_id: str | None
    source_run_id: str | None
    output_count: int
    started_at: str
    finished_at: str | None
    failure_detail: str | None
    package: str
    catalog_hash: str
    definition_hash: str
    config_hash: str
    model_usage: RunModelUsage
    content: RunContent
    read_receipt: dict[str, Any] | None
    emission: dict[str, Any]
    expected_active_heads: list[RunExpectedActiveHead]
    keyed_divergence: list[RunKeyedDivergence]
    visible_sources: list[dict[str, Any]]
    citations: list[str]
    output_ids: list[str]
    output_total: int
    output_offset: int
    output_limit: int
    records: list[RunRecord]


class JobsQuery(TypedDict, total=False):
    """GET /jobs (query)."""
    state: Literal['queued', 'running', 'succeeded', 'dead', 'cancelled']
    kind: str
    limit: int


class JobsPageJobLease2(TypedDict):
    owner: str
    expires_at: str


class JobsPageJob(TypedDict):
    id: str
    kind: str
    state: Literal['queued', 'running', 'succeeded', 'dead', 'cancelled']
    attempts: int
    max_attempts: int
    run_after: str
    lease: None | JobsPageJobLease2
    last_error: str | None
    successful_run_id: str | None
    created_at: str
    updated_at: str
    finished_at: str | None


class JobsPage(TypedDict):
    """GET /jobs."""
    jobs: list[JobsPageJob]
    next_before: str | None


Job = JobsPageJob
"""GET /jobs/{id}."""


class KeyListKey(TypedDict):
    id: str
    name: str
    scope: Literal['admin', 'read_write', 'read_only']
    prefix: str | None
    created_at: str
    last_used_at: str | None
    expires_at: str | None
    revoked_at: str | None


class KeyList(TypedDict):
    """GET /keys."""
    keys: list[KeyListKey]


class _KeyRequestRequired(TypedDict):
    name: str
    scope: Literal['read_write', 'read_only']


class KeyRequest(_KeyRequestRequired, total=False):
    """POST /keys (body)."""
    expires_in: str


class CreatedKey(TypedDict):
    """POST /keys."""
    id: str
    name: str
    scope: Literal['read_write', 'read_only']
    prefix: str
    api_key: str
    expires_at: str | None


class PromoteRequest(TypedDict):
    """POST /promote (body)."""
    entity: str
    source_run_id: str
    artifact: str


class PromoteResponsePromoted(TypedDict):
    key: str
    draft_id: str
    record_id: str


class PromoteResponse(TypedDict):
    """POST /promote."""
    promotion_run_id: str
    source_run_id: str
    entity: str
    promoted: list[PromoteResponsePromoted]
    already_promoted: bool
