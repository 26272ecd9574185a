/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Tracepoints for device resets (rdma_reset:*).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rdma_reset

#if !defined(_TRACE_RDMA_RESET_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_RDMA_RESET_H

#include <linux/tracepoint.h>

TRACE_EVENT(ib_reset_prepare,
	    TP_PROTO(const char *name, __be64 node_guid, const char *kind),
	    TP_ARGS(name, node_guid, kind),
	    TP_STRUCT__entry(__string(name, name)
			     __field(u64, node_guid)
			     __string(kind, kind)),
	    TP_fast_assign(__assign_str(name);
			   __entry->node_guid = be64_to_cpu(node_guid);
			   __assign_str(kind);),
	    TP_printk("device=%s node_guid=%016llx kind=%s",
		      __get_str(name), __entry->node_guid, __get_str(kind))
);

TRACE_EVENT(ib_reset_client,
	    TP_PROTO(const char *name, const char *client, const char *phase),
	    TP_ARGS(name, client, phase),
	    TP_STRUCT__entry(__string(name, name)
			     __string(client, client)
			     __string(phase, phase)),
	    TP_fast_assign(__assign_str(name);
			   __assign_str(client);
			   __assign_str(phase);),
	    TP_printk("device=%s client=%s phase=%s",
		      __get_str(name), __get_str(client), __get_str(phase))
);

TRACE_EVENT(ib_reset_finish,
	    TP_PROTO(const char *name, __be64 node_guid, const char *kind,
		     const char *outcome, u64 ms),
	    TP_ARGS(name, node_guid, kind, outcome, ms),
	    TP_STRUCT__entry(__string(name, name)
			     __field(u64, node_guid)
			     __string(kind, kind)
			     __string(outcome, outcome)
			     __field(u64, ms)),
	    TP_fast_assign(__assign_str(name);
			   __entry->node_guid = be64_to_cpu(node_guid);
			   __assign_str(kind);
			   __assign_str(outcome);
			   __entry->ms = ms;),
	    TP_printk("device=%s node_guid=%016llx kind=%s outcome=%s duration_ms=%llu",
		      __get_str(name), __entry->node_guid, __get_str(kind),
		      __get_str(outcome), __entry->ms)
);

#endif /* _TRACE_RDMA_RESET_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE reset_trace

#include <trace/define_trace.h>
