/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracepoints of the vivpoll capture driver
 */

#undef TRACE_SYSTEM
#define TRACE_SYSTEM vivpoll

#if !defined(_VIVPOLL_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _VIVPOLL_TRACE_H_

#include <linux/tracepoint.h>
#include <linux/types.h>

/* The poll masks are passed as u32: __poll_t is a sparse bitwise type */
TRACE_EVENT(vivpoll_poll,
	    TP_PROTO(unsigned int inst, u32 req, u32 ret),
	    TP_ARGS(inst, req, ret),
	    TP_STRUCT__entry(__field(unsigned int, inst)
			     __field(u32, req)
			     __field(u32, ret)),
	    TP_fast_assign(__entry->inst = inst;
			   __entry->req = req;
			   __entry->ret = ret;),
	    TP_printk("inst=%u req=0x%08x ret=0x%08x",
		      __entry->inst, __entry->req, __entry->ret)
);

TRACE_EVENT(vivpoll_engine_start,
	    TP_PROTO(unsigned int inst),
	    TP_ARGS(inst),
	    TP_STRUCT__entry(__field(unsigned int, inst)),
	    TP_fast_assign(__entry->inst = inst;),
	    TP_printk("inst=%u", __entry->inst)
);

/* @slots: frame slots of the run, filled or dropped (its next sequence) */
TRACE_EVENT(vivpoll_engine_stop,
	    TP_PROTO(unsigned int inst, u32 slots),
	    TP_ARGS(inst, slots),
	    TP_STRUCT__entry(__field(unsigned int, inst)
			     __field(u32, slots)),
	    TP_fast_assign(__entry->inst = inst;
			   __entry->slots = slots;),
	    TP_printk("inst=%u slots=%u", __entry->inst, __entry->slots)
);

#endif /* _VIVPOLL_TRACE_H_ */

/* This part must be outside the header guard */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE vivpoll_trace
#include <trace/define_trace.h>
